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

/** The Event note: which event, who refused it and how, and what happens next. */
export function droppedNote(ce: CloudEvent<unknown>): string {
  const code = ce["knativeerrorcode"];
  const dest = ce["knativeerrordest"];
  const refusal =
    code !== undefined || dest !== undefined
      ? ` (${typeof dest === "string" ? dest : "the subscriber"} answered ${typeof code === "string" || typeof code === "number" ? code : "nothing"})`
      : "";
  return `a ${ce.type} event (${ce.id}) for this object was dropped after the Broker's retries${refusal}; the next resync reconciles the object`;
}
