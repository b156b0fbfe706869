// One delivery for a NatsBalancer (an account balancer): observe its account through its own
// connection, decide (pure), act (lease, claim, Events, the stepdown), and keep its PingSource at
// `interval` for as long as it exists.
import type { Kube } from "../../../shared/kube/client.ts";
import { NatsApiError } from "../../../shared/nats/request.ts";
import type { ConnectionPool } from "../../../shared/nats/pool.ts";
import type { FunctionContext } from "../../../shared/runtime/function.ts";
import { conflict, done, skipped, withSchedules, type Outcome } from "../../../shared/runtime/outcome.ts";
import { actAccount } from "./act.ts";
import { ACCOUNT_BALANCER, type NatsBalancer } from "./resource.ts";
import { decideAccount } from "./decide.ts";
import { accountConnection, observeAccount } from "./observe.ts";
import type { MoveSender } from "../system/act.ts";
import { countHeldPass } from "../pass/held-passes.ts";
import { accountBalancerPoll, noAccountPoll } from "../pass/schedule.ts";
import { requestStepdown } from "../leaders/stepdown.ts";

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

export async function handleAccountBalancer(
  context: FunctionContext,
  pool: ConnectionPool,
  namespace: string,
  name: string,
): Promise<Outcome> {
  const kube = await context.kube();
  const stop = [noAccountPoll(namespace, name)];
  const balancer = await kube.get<NatsBalancer>({
    apiVersion: ACCOUNT_BALANCER.apiVersion,
    kind: ACCOUNT_BALANCER.kind,
    namespace,
    name,
  });
  if (!balancer) return withSchedules(skipped(`NatsBalancer ${namespace}/${name} is gone`), stop);
  if (balancer.metadata.deletionTimestamp) return withSchedules(skipped("NatsBalancer is being deleted"), stop);

  const observed = await observeAccount(kube, pool, balancer);
  const decision = decideAccount(observed, context.now());
  const acted = await actAccount(kube, await context.recorder(), balancer, decision, sendWith(kube, pool, balancer));
  const schedules = [accountBalancerPoll(balancer, decision.poll)];
  if (acted.kind === "conflict")
    return withSchedules(
      conflict(
        "the balancer or its move lease changed while deciding; the pass is left to the delivery that claimed it",
      ),
      schedules,
    );
  countHeldPass(balancer, decision.status);
  return withSchedules(done(acted.refused ?? decision.summary), schedules);
}
