import type { CloudEvent } from "cloudevents";

/** CloudEvent types the operator consumes. */
export const EventTypes = {
  resourceAdd: "dev.knative.apiserver.resource.add",
  resourceUpdate: "dev.knative.apiserver.resource.update",
  resourceDelete: "dev.knative.apiserver.resource.delete",
  refAdd: "dev.knative.apiserver.ref.add",
  refUpdate: "dev.knative.apiserver.ref.update",
  refDelete: "dev.knative.apiserver.ref.delete",
  ping: "dev.knative.sources.ping",
} as const;

export type ObjectAction = "add" | "update" | "delete";

/** The object an ApiServerSource event names; nothing more is trusted from it. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/** The metadata and status fields the runtime reads from a Resource-mode payload. */
export interface ObjectSnapshot {
  metadata?: {
    generation?: number;
    resourceVersion?: string;
    deletionTimestamp?: string;
    annotations?: Record<string, string>;
  };
  status?: { observedGeneration?: number; conditions?: { type: string; status?: string; reason?: string }[] };
}

export type OperatorEvent =
  | {
      source: "apiserver";
      action: ObjectAction;
      /** Resource mode carries the object; Reference mode only its reference. */
      mode: "resource" | "reference";
      ref: ObjectRef;
      snapshot: ObjectSnapshot | undefined;
    }
  | {
      source: "ping";
      /** The PingSource that fired, `<namespace>/<name>`, when its source attribute says so. */
      pingSource: string | undefined;
      /** The JSON body the PingSource carries, naming the work. */
      work: Record<string, unknown>;
    };

export type DecodeResult = { ok: true; event: OperatorEvent } | { ok: false; message: string };

const apiserverType = /^dev\.knative\.apiserver\.(resource|ref)\.(add|update|delete)$/;
const pingSourcePath = /^\/apis\/v1\/namespaces\/([^/]+)\/pingsources\/([^/]+)$/;

/** Reads what the operator needs from a CloudEvent, or says why the event is malformed. */
export function decodeEvent(ce: CloudEvent<unknown>): DecodeResult {
  const apiserver = apiserverType.exec(ce.type);
  if (apiserver)
    return decodeApiServerEvent(
      ce,
      apiserver[1] === "resource" ? "resource" : "reference",
      apiserver[2] as ObjectAction,
    );
  if (ce.type === EventTypes.ping) return decodePing(ce);
  return { ok: false, message: `unsupported event type "${ce.type}"` };
}

function decodeApiServerEvent(
  ce: CloudEvent<unknown>,
  mode: "resource" | "reference",
  action: ObjectAction,
): DecodeResult {
  const data = asRecord(parseData(ce.data));
  const metadata = asRecord(data?.metadata);
  // Extensions are what Triggers filter on; the payload fills gaps for hand-made events.
  const ref = {
    apiVersion: stringOf(ce["apiversion"]) ?? stringOf(data?.apiVersion),
    kind: stringOf(ce["kind"]) ?? stringOf(data?.kind),
    namespace: stringOf(ce["namespace"]) ?? stringOf(metadata?.namespace) ?? stringOf(data?.namespace),
    name: stringOf(ce["name"]) ?? stringOf(metadata?.name) ?? stringOf(data?.name),
  };
  const missing = Object.entries(ref)
    .filter(([, v]) => !v)
    .map(([k]) => k);
  if (missing.length > 0) {
    return { ok: false, message: `event ${ce.id} names no object: missing ${missing.join(", ")}` };
  }
  return {
    ok: true,
    event: {
      source: "apiserver",
      action,
      mode,
      ref: ref as ObjectRef,
      snapshot: mode === "resource" && data ? (data as ObjectSnapshot) : undefined,
    },
  };
}

function decodePing(ce: CloudEvent<unknown>): DecodeResult {
  const parsed = parseData(ce.data);
  if (parsed !== undefined && asRecord(parsed) === undefined) {
    return { ok: false, message: `ping event ${ce.id} carries data that is not a JSON object` };
  }
  const path = pingSourcePath.exec(ce.source);
  return {
    ok: true,
    event: {
      source: "ping",
      pingSource: path ? `${path[1]}/${path[2]}` : undefined,
      work: asRecord(parsed) ?? {},
    },
  };
}

function parseData(data: unknown): unknown {
  if (data instanceof Uint8Array) data = Buffer.from(data).toString("utf8");
  if (typeof data !== "string") return data;
  if (data.trim() === "") return undefined;
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
