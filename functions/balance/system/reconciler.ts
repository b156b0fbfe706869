// The NatsSystemBalancer reconciler: evens JetStream leaders across the servers of one NATS
// cluster, on the balancer's own connection; its PingSource ticks at `interval` while it exists.
import { type ConnectionPool, NatsApiError } from "../../../shared/nats/index.ts";
import {
  keepPolling,
  type Poll,
  type Reconciler,
  type ScheduleDecision,
  stopPolling,
} from "../../../shared/runtime/index.ts";
import type { Kube } from "../../../shared/kube/index.ts";
import { requestCopyMove } from "../leaders/move.ts";
import { requestStepdown } from "../leaders/stepdown.ts";
import { type MoveSender, passAnswer } from "../pass/claim.ts";
import { act } from "./act.ts";
import { decide } from "./decide.ts";
import type { Decision } from "./types.ts";
import { connectionOf, observe, type Observed } from "./observe.ts";
import { type NatsSystemBalancer, SYSTEM_BALANCER } from "./resource.ts";

export const scheduleId = (namespace: string, name: string) => ({ namespace, name: `${name}-system-balance` });

/** The balancer's PingSource, owned by it, ticking at `poll`. */
export function balancerPoll(balancer: NatsSystemBalancer, poll: Poll): ScheduleDecision {
  const namespace = balancer.metadata.namespace ?? "";
  return keepPolling(
    {
      ...scheduleId(namespace, balancer.metadata.name),
      target: "balance",
      work: { kind: "NatsSystemBalancer", namespace, name: balancer.metadata.name },
      scope: { kind: "object", owner: balancer },
    },
    poll,
  );
}

/** No PingSource for a balancer that is gone. */
export const noPoll = (namespace: string, name: string): ScheduleDecision => stopPolling(scheduleId(namespace, name));
/** Requests the move on the balancer's pooled connection; says why it failed, if it did. */
const sendWith =
  (kube: Kube, pool: ConnectionPool, balancer: NatsSystemBalancer): MoveSender =>
  async (move) => {
    const connected = await connectionOf(kube, pool, balancer);
    if (!connected.ok) return `the ${move.target.stream} move was not requested: ${connected.message}`;
    try {
      if (move.placement) await requestCopyMove(connected.nc, move.target, move.from, move.placement.cluster);
      else await requestStepdown(connected.nc, move.target, move.to, move.ownAccount);
      return undefined;
    } catch (error) {
      const why = error instanceof NatsApiError ? `the server refused it: ${error.message}` : String(error);
      if (move.placement) return `copy of stream ${move.target.stream} was not moved off ${move.from}: ${why}`;
      return `leader of ${move.target.consumer ? `consumer ${move.target.stream}/${move.target.consumer}` : `stream ${move.target.stream}`} was not moved from ${move.from} to ${move.to}: ${why}`;
    }
  };

export function systemBalancer(pool: ConnectionPool): Reconciler<NatsSystemBalancer, Observed, Decision> {
  return {
    kind: SYSTEM_BALANCER,
    schedulesOf: (key) => [noPoll(key.namespace, key.name)],
    observe: (balancer, { kube }) => observe(kube, pool, balancer),
    decide,
    async act(balancer, decision, { kube, recorder }) {
      const acted = await act(kube, await recorder(), balancer, decision, sendWith(kube, pool, balancer));
      return passAnswer(balancer, decision, acted, [balancerPoll(balancer, decision.poll)]);
    },
  };
}
