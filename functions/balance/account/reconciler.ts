// The NatsBalancer reconciler (an account balancer): observes its account through its own
// connection, decides (pure), acts (lease, claim, Events, the stepdown), and keeps its PingSource
// at `interval` for as long as it exists.
import type { Kube } from "../../../shared/kube/index.ts";
import { type ConnectionPool, NatsApiError } from "../../../shared/nats/index.ts";
import {
  keepPolling,
  type Poll,
  type Reconciler,
  type ScheduleDecision,
  stopPolling,
} from "../../../shared/runtime/index.ts";
import { actAccount } from "./act.ts";
import { ACCOUNT_BALANCER, type NatsBalancer } from "./resource.ts";
import { type AccountDecision, decideAccount } from "./decide.ts";
import { accountConnection, type AccountObserved, observeAccount } from "./observe.ts";
import { type MoveSender, passAnswer } from "../pass/claim.ts";
import { requestStepdown } from "../leaders/stepdown.ts";

export const accountScheduleId = (namespace: string, name: string) => ({ namespace, name: `${name}-balance` });

/** The account balancer's PingSource, owned by it, ticking at `poll`. */
export function accountBalancerPoll(balancer: NatsBalancer, poll: Poll): ScheduleDecision {
  const { namespace, name } = balancer.metadata;
  return keepPolling(
    {
      ...accountScheduleId(namespace, name),
      target: "balance",
      work: { kind: "NatsBalancer", namespace, name },
      scope: { kind: "object", owner: balancer },
    },
    poll,
  );
}

/** No PingSource for an account balancer that is gone. */
export const noAccountPoll = (namespace: string, name: string): ScheduleDecision =>
  stopPolling(accountScheduleId(namespace, name));

/** Requests the stepdown on the balancer's own connection; says why it failed, if it did. */
const sendWith =
  (kube: Kube, pool: ConnectionPool, balancer: NatsBalancer): MoveSender =>
  async (move) => {
    const what = move.target.consumer
      ? `consumer ${move.target.stream}/${move.target.consumer}`
      : `stream ${move.target.stream}`;
    const connected = await accountConnection(kube, pool, balancer);
    if (!connected.ok) return `the leader of ${what} was not moved: ${connected.message}`;
    try {
      await requestStepdown(connected.nc, move.target, move.to, move.ownAccount);
      return undefined;
    } catch (error) {
      const why = error instanceof NatsApiError ? `the server refused it: ${error.message}` : String(error);
      return `leader of ${what} was not moved from ${move.from} to ${move.to}: ${why}`;
    }
  };

export function accountBalancer(pool: ConnectionPool): Reconciler<NatsBalancer, AccountObserved, AccountDecision> {
  return {
    kind: ACCOUNT_BALANCER,
    schedulesOf: (key) => [noAccountPoll(key.namespace, key.name)],
    observe: (balancer, { kube }) => observeAccount(kube, pool, balancer),
    decide: decideAccount,
    async act(balancer, decision, { kube, recorder }) {
      const acted = await actAccount(kube, await recorder(), balancer, decision, sendWith(kube, pool, balancer));
      return passAnswer(balancer, decision, acted, [accountBalancerPoll(balancer, decision.poll)]);
    },
  };
}
