// render-cluster's NatsCluster reconciler. The render is made of more than the NatsCluster, so
// its servers' StatefulSets, the kinds it reads (referrers.ts) and its own ticks lead here too.
// Two phases in one delivery: decide says which route TLS Secrets to issue first, and act issues
// them, decides the render from the Secrets as they now stand (pure, decide.ts) and writes it.
// A delivery that fails tells the user (failure.ts), once; a write conflict is only retried.
import { isConflict } from "../../shared/kube/index.ts";
import type { Acted, ReconcileContext, Reconciler } from "../../shared/runtime/index.ts";
import {
  allowGatewayWithoutTls,
  type Cluster,
  CLUSTER_REF,
  fromClusterTicks,
  fromServerStatefulSets,
  readCluster,
  rolloutPoll,
} from "../cluster/index.ts";
import { act, actRouteTls } from "./act.ts";
import { decide, decideDelivery, type DeliveryDecision, type RenderOptions } from "./decide.ts";
import { reportFailure } from "./failure.ts";
import { failureOfError } from "./failure-annotations.ts";
import { observe, type Observed } from "./observe.ts";
import { fromInputs, isInputRef } from "./referrers.ts";
import { noRenderTicks } from "./schedule.ts";

/** What a delivery observed, and how the operator was started (read per delivery: tests change it). */
interface Observation {
  observed: Observed;
  options: RenderOptions;
}

/**
 * The delivery's decision: the render, or the route TLS to issue first with the observation the
 * render is then decided from; or what deciding threw, reported by act as any failure is.
 */
type Decision =
  | Extract<DeliveryDecision, { kind: "render" }>
  | (Extract<DeliveryDecision, { kind: "issue-route-tls" }> & { then: Observation; now: Date })
  | { kind: "failed"; error: unknown; summary: string };

/** Runs a step of the delivery; what it throws, other than a write conflict, is recorded as the render failure. */
async function reporting<T>(cluster: Cluster, context: ReconcileContext, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!isConflict(error)) {
      const message = failureOfError(error);
      await reportFailure(context.kube, () => context.recorder(), cluster, message).catch(() => undefined);
    }
    throw error;
  }
}

export const natsCluster: Reconciler<Cluster, Observation, Decision> = {
  kind: CLUSTER_REF,
  related: [fromServerStatefulSets, ...fromInputs, fromClusterTicks],
  load: (key, { kube }) => readCluster(kube, key.namespace, key.name),
  // Its deletion is step-rollout's guard; render-cluster's ticks go with it.
  schedulesOf: (key) => noRenderTicks(key.namespace, key.name),
  observe: (cluster, context) =>
    reporting(cluster, context, async () => ({
      observed: await observe(context.kube, cluster),
      options: { allowGatewayWithoutTls: allowGatewayWithoutTls() },
    })),
  decide(observation, now): Decision {
    try {
      const decided = decideDelivery(observation.observed, now, observation.options);
      return decided.kind === "issue-route-tls" ? { ...decided, then: observation, now } : decided;
    } catch (error) {
      return { kind: "failed", error, summary: "the render could not be decided" };
    }
  },
  act: (cluster, decision, context) =>
    reporting(cluster, context, async (): Promise<Acted> => {
      if (decision.kind === "failed") throw decision.error;
      let render: Extract<DeliveryDecision, { kind: "render" }>;
      if (decision.kind === "issue-route-tls") {
        // Phase 1 wrote the route TLS Secrets: the render is decided from them as they now stand.
        // One time for the whole delivery: the certificate is issued at the time its order was judged.
        const {
          then: { observed, options },
          now,
        } = decision;
        render = {
          kind: "render",
          ...decide(await actRouteTls(context.kube, observed, decision.order, now), now, options),
        };
      } else render = decision;
      await act(context.kube, () => context.recorder(), cluster, render);
      // An input's change is a new revision: step-rollout at rest has no tick that would notice it.
      const cause = context.cause;
      const poke = cause.kind === "related" && cause.from !== "tick" && isInputRef(cause.from);
      return {
        kind: "done",
        summary: render.summary,
        // The decision's own schedules are the runtime's to keep; a render decided here says its own.
        schedules: [...(render === decision ? [] : render.schedules), ...(poke ? [rolloutPoll(cluster, true)] : [])],
      };
    }),
};
