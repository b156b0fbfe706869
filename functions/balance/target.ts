// Which balancer an event is about: the object of an ApiServerSource event, or the one a tick names.
import type { OperatorEvent } from "../../shared/runtime/event.ts";

export type Target =
  | { kind: "NatsSystemBalancer" | "NatsBalancer" | "NatsClusterEvacuation"; namespace: string; name: string }
  | { kind: "none"; reason: string };

const KINDS = ["NatsSystemBalancer", "NatsBalancer", "NatsClusterEvacuation"] as const;
const isKind = (kind: unknown): kind is (typeof KINDS)[number] => KINDS.some((k) => k === kind);

export function targetOf(event: OperatorEvent): Target {
  const { kind, namespace, name } =
    event.source === "ping"
      ? { kind: event.work["kind"], namespace: event.work["namespace"], name: event.work["name"] }
      : event.ref;
  if (!isKind(kind)) return { kind: "none", reason: `${String(kind ?? "a tick naming no kind")} is not balanced` };
  if (typeof namespace !== "string" || typeof name !== "string" || !namespace || !name)
    return { kind: "none", reason: `the event names no ${kind}` };
  return { kind, namespace, name };
}
