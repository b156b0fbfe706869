// balance: evens JetStream leaders across the servers of a NATS cluster (NatsSystemBalancer), or
// within the pools of one account's streams (NatsBalancer, account-balance.ts), and moves every
// stream off a NATS cluster (NatsClusterEvacuation, evacuate.ts). Each pass observes
// (reads only), decides (pure) and acts (the guarded status write that claims the pass, then the
// moves).
import type { Kube } from "../../shared/kube/client.ts";
import { createConnectionPool } from "../../shared/nats/pool.ts";
import { NatsApiError } from "../../shared/nats/request.ts";
import type { OperatorFunction } from "../../shared/runtime/function.ts";
import { conflict, done, skipped, withSchedules } from "../../shared/runtime/outcome.ts";
import { handleAccountBalancer } from "./account/reconciler.ts";
import { act, type MoveSender } from "./system/act.ts";
import { type NatsSystemBalancer, SYSTEM_BALANCER } from "./system/resource.ts";
import { decide } from "./system/decide.ts";
import { countHeldPass } from "./pass/held-passes.ts";
import { handleEvacuation } from "./evacuation/reconciler.ts";
import { connectionOf, observe } from "./system/observe.ts";
import { balancerPoll, noPoll } from "./pass/schedule.ts";
import { requestCopyMove } from "./leaders/move.ts";
import { requestStepdown } from "./leaders/stepdown.ts";
import { targetOf } from "./target.ts";

const pool = createConnectionPool(undefined, "nats-operator/balance");

/** Requests the move on the balancer's pooled connection; says why it failed, if it did. */
const sendWith =
  (kube: Kube, balancer: NatsSystemBalancer): MoveSender =>
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

export const balance: OperatorFunction = {
  name: "balance",
  kinds: [
    "NatsBalancer.jetstream.nats-operator.io",
    "NatsSystemBalancer.jetstream.nats-operator.io",
    "NatsClusterEvacuation.jetstream.nats-operator.io",
  ],
  handlesPings: true,
  owns: [
    "NatsBalancer.jetstream.nats-operator.io",
    "NatsSystemBalancer.jetstream.nats-operator.io",
    "NatsClusterEvacuation.jetstream.nats-operator.io",
  ],
  async handle(context) {
    const target = targetOf(context.event);
    if (target.kind === "none") return skipped(target.reason);
    if (target.kind === "NatsClusterEvacuation") return handleEvacuation(context, pool, target.namespace, target.name);
    if (target.kind === "NatsBalancer") return handleAccountBalancer(context, pool, target.namespace, target.name);
    const kube = await context.kube();
    const stop = [noPoll(target.namespace, target.name)];
    const balancer = await kube.get<NatsSystemBalancer>({
      apiVersion: SYSTEM_BALANCER.apiVersion,
      kind: SYSTEM_BALANCER.kind,
      namespace: target.namespace,
      name: target.name,
    });
    if (!balancer) return withSchedules(skipped(`NatsSystemBalancer ${target.namespace}/${target.name} is gone`), stop);
    if (balancer.metadata.deletionTimestamp) return withSchedules(skipped("NatsSystemBalancer is being deleted"), stop);

    const observed = await observe(kube, pool, balancer);
    const decision = decide(observed, context.now());
    const acted = await act(kube, await context.recorder(), balancer, decision, sendWith(kube, balancer));
    const schedules = [balancerPoll(balancer, decision.poll)];
    if (acted.kind === "conflict")
      return withSchedules(
        conflict(
          "the balancer or its move lease changed while deciding; the pass is left to the delivery that claimed it",
        ),
        schedules,
      );
    countHeldPass(balancer, decision.status);
    return withSchedules(done(acted.refused ?? decision.summary), schedules);
  },
  shutdown: () => pool.closeAll(),
};

export const handle = balance.handle;
