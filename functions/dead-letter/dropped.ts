// What the dead-letter function says about a dropped event, and about which object: pure.
import type { CloudEvent } from "cloudevents";
import type { KubeObject } from "../../shared/kube/index.ts";
import type { OperatorEvent } from "../../shared/runtime/index.ts";

/** The object a dropped event named (a ping names its PingSource), without reading it. */
export function regardingOf(event: OperatorEvent): KubeObject | undefined {
  if (event.source === "apiserver") {
    const uid = (event.snapshot?.metadata as { uid?: string } | undefined)?.uid;
    return {
      apiVersion: event.ref.apiVersion,
      kind: event.ref.kind,
      metadata: { name: event.ref.name, namespace: event.ref.namespace, ...(uid !== undefined ? { uid } : {}) },
    };
  }
  const [namespace, name] = (event.pingSource ?? "").split("/");
  if (namespace === undefined || name === undefined || name === "") return undefined;
  return { apiVersion: "sources.knative.dev/v1", kind: "PingSource", metadata: { name, namespace } };
}

/** Secrets are never read by dead-letter (its role has no Secret access): their drops are logged only. */
export function isSecret(object: KubeObject): boolean {
  return object.apiVersion === "v1" && object.kind === "Secret";
}

/**
 * The object to record on: the one the event named, as read back from the API server, so an
 * event naming nothing that exists (a forged one, or one about an object since deleted and
 * perhaps recreated under the same name) writes no Event. Undefined when there is none.
 */
export function recordOn(named: KubeObject, found: KubeObject | undefined): KubeObject | undefined {
  if (found === undefined) return undefined;
  if (named.metadata.uid !== undefined && found.metadata.uid !== named.metadata.uid) return undefined;
  return {
    apiVersion: found.apiVersion,
    kind: found.kind,
    metadata: {
      name: found.metadata.name,
      namespace: found.metadata.namespace,
      ...(found.metadata.uid !== undefined ? { uid: found.metadata.uid } : {}),
    },
  };
}

/** The sender writes these attributes; each is cut to this many characters in the note. */
const ATTRIBUTE_MAX = 128;

const bounded = (value: string): string =>
  value.length > ATTRIBUTE_MAX ? `${value.slice(0, ATTRIBUTE_MAX - 1)}…` : value;

/**
 * What recovers a dropped event (shared/runtime/resync.ts): an object's change, the next resync,
 * which reconciles the object unless its status shows it at rest and every object whose recorded
 * inputs it changed; a tick, the same PingSource's next one.
 */
export const RECOVERED_BY =
  "the next resync reconciles the object if its status does not describe it, and every object whose last reconcile read it " +
  "(a change to an object the operator made for another, a server's StatefulSet, waits for that one's next event or poll)";
const TICK_RECOVERED_BY = "the PingSource's next tick does what this one would have";

/** The Event note: which event, who refused it and how, and what happens next. */
export function droppedNote(ce: CloudEvent<unknown>): string {
  const code = ce["knativeerrorcode"];
  const dest = ce["knativeerrordest"];
  const refusal =
    code !== undefined || dest !== undefined
      ? ` (${typeof dest === "string" ? bounded(dest) : "the subscriber"} answered ${typeof code === "string" || typeof code === "number" ? bounded(String(code)) : "nothing"})`
      : "";
  const next = ce.type.startsWith("dev.knative.sources.ping") ? TICK_RECOVERED_BY : RECOVERED_BY;
  return `a ${bounded(ce.type)} event (${bounded(ce.id)}) for this object was dropped after the Broker's retries${refusal}; ${next}`;
}
