// Where a resource's server object lives: its connection, and for consumers the stream.
import { findCondition, isAdmitted, type Kube } from "../../../shared/kube/index.ts";
import { type NatsConnectionObject, resolveConnection } from "../../../shared/nats/index.ts";
import { jetstreamApiVersion, type ObjectKind, type TargetResult } from "./kinds.ts";
import { keyValueTarget, objectStoreTarget } from "./bucket-target.ts";
import { consumerTarget } from "./consumer-target.ts";
import { streamNameOf, streamTarget } from "./stream-target.ts";
import type { SyncResult } from "../plan/status.ts";
import type { JetStreamObject } from "../types.ts";

/** Where a resource's server object lives: its connection and the target it names. */
export type Placement =
  | { ok: true; connection: NatsConnectionObject; target: TargetResult }
  | { ok: false; result: Extract<SyncResult, { kind: "connection" | "streamWaiting" }> };

/** Resolves connection (and for consumers with streamRef, the NatsStream) and builds the target. */
/** `fresh`: read the NatsConnection now, never from the short-lived cache (deletion decides on it). */
export async function placementOf(kube: Kube, object: JetStreamObject, fresh = false): Promise<Placement> {
  const namespace = object.metadata.namespace ?? "";
  const kind = object.kind as ObjectKind;
  let referrer = { group: "jetstream.nats-operator.io", kind, namespace };
  let connectionRef = object.spec.connectionRef;
  let streamName = object.spec.stream;

  if (kind === "NatsConsumer" && object.spec.streamRef) {
    const ref = object.spec.streamRef;
    const streamNamespace = ref.namespace ?? namespace;
    const admitted = await isAdmitted(kube, referrer, {
      group: "jetstream.nats-operator.io",
      kind: "NatsStream",
      namespace: streamNamespace,
      name: ref.name,
    });
    if (!admitted) {
      const message = `no NatsReferenceGrant in namespace ${streamNamespace} admits NatsConsumer from ${namespace} to NatsStream ${ref.name}`;
      return { ok: false, result: { kind: "connection", reason: "ReferenceNotPermitted", message, noGrant: true } };
    }
    const stream = await kube.get<JetStreamObject>({
      apiVersion: jetstreamApiVersion,
      kind: "NatsStream",
      namespace: streamNamespace,
      name: ref.name,
    });
    if (!stream) {
      return {
        ok: false,
        result: {
          kind: "streamWaiting",
          reason: "StreamNotFound",
          message: `NatsStream ${streamNamespace}/${ref.name} not found`,
        },
      };
    }
    const ready = findCondition(stream.status?.conditions, "Ready");
    if (ready?.status !== "True" || stream.status?.observedGeneration !== stream.metadata.generation) {
      return {
        ok: false,
        result: {
          kind: "streamWaiting",
          reason: "StreamNotReady",
          message: `NatsStream ${streamNamespace}/${ref.name} is not Ready`,
        },
      };
    }
    streamName = streamNameOf(stream as never);
    if (!connectionRef) {
      connectionRef = {
        name: stream.spec.connectionRef?.name ?? "",
        namespace: stream.spec.connectionRef?.namespace ?? streamNamespace,
      };
      referrer = { group: "jetstream.nats-operator.io", kind: "NatsStream", namespace: streamNamespace };
    }
  }
  if (!connectionRef) {
    return {
      ok: false,
      result: {
        kind: "connection",
        reason: "ConnectionNotFound",
        message: "spec names no connectionRef",
        noGrant: false,
      },
    };
  }
  const resolved = await resolveConnection(kube, referrer, connectionRef, fresh);
  if (!resolved.ok)
    return {
      ok: false,
      result: { kind: "connection", reason: resolved.reason, message: resolved.message, noGrant: resolved.noGrant },
    };

  const target =
    kind === "NatsStream"
      ? streamTarget(object as never)
      : kind === "NatsKeyValue"
        ? keyValueTarget(object as never)
        : kind === "NatsObjectStore"
          ? objectStoreTarget(object as never)
          : consumerTarget(object as never, streamName ?? "");
  return { ok: true, connection: resolved.connection, target };
}
