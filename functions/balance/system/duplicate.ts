// One NatsSystemBalancer per NATS cluster: the oldest balances it, any other reads
// DuplicateBalancer. Which cluster another balancer covers is read from its status (the servers
// it reported) or its connection. Server names repeat across NATS systems, so observe.ts first
// drops the namesakes whose own connection reaches another system.
import type { NatsSystemBalancer } from "./resource.ts";

const orderOf = (b: NatsSystemBalancer) =>
  [b.metadata.creationTimestamp ?? "", b.metadata.namespace ?? "", b.metadata.name] as const;

/** Whether `a` came first: creation time, then namespace and name. */
export function isOlder(a: NatsSystemBalancer, b: NatsSystemBalancer): boolean {
  const [x, y] = [orderOf(a), orderOf(b)];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] as string) < (y[i] as string);
  return false;
}

/** The NatsConnection a balancer names, as `namespace/name`. */
export const connectionKeyOf = (b: NatsSystemBalancer) =>
  `${b.spec.connectionRef.namespace ?? b.metadata.namespace ?? ""}/${b.spec.connectionRef.name}`;

/** The older balancer that already covers the NATS cluster of `roster`, if any. */
export function coveringBalancer(
  self: NatsSystemBalancer,
  others: readonly NatsSystemBalancer[],
  roster: readonly string[],
): NatsSystemBalancer | undefined {
  return others
    .filter((o) => o.metadata.uid !== self.metadata.uid && !o.metadata.deletionTimestamp && isOlder(o, self))
    .filter(
      (o) =>
        connectionKeyOf(o) === connectionKeyOf(self) || (o.status?.servers ?? []).some((s) => roster.includes(s.name)),
    )
    .sort((a, b) => (isOlder(a, b) ? -1 : 1))[0];
}
