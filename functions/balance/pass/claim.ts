// The claim of a pass, for either kind of balancer: the move lease, then the status write guarded by
// the resourceVersion the decision was made from, so of concurrent deliveries only one moves.
import { FIELD_MANAGERS } from "../../../shared/api/index.ts";
import { type Condition, type EventRecorder, type Kube, writeStatus } from "../../../shared/kube/index.ts";
import type { Acted, ScheduleDecision } from "../../../shared/runtime/index.ts";
import type { NatsBalancer } from "../account/resource.ts";
import type { NatsSystemBalancer } from "../system/resource.ts";
import { countHeldPass } from "./held-passes.ts";
import { writeLease } from "./lease.ts";
import type { LeaseWrite } from "./lease-decision.ts";
import type { BalancerEvent, MoveRequest } from "./types.ts";

export const FIELD_MANAGER = FIELD_MANAGERS.balance;

/** Sends the stepdown; resolves to why it failed, or undefined when the server took it. */
export type MoveSender = (move: MoveRequest) => Promise<string | undefined>;

/**
 * Claims a pass, for either kind of balancer: the lease first (of two balancers, or deliveries,
 * about to move only one gets past it), then the status guarded by the resourceVersion read, then
 * a lease let go, then the Events. Undefined when another holder or delivery got there first.
 */
export async function claimPass<B extends NatsSystemBalancer | NatsBalancer>(
  kube: Kube,
  recorder: EventRecorder,
  balancer: B,
  pass: { status: Record<string, unknown>; lease?: LeaseWrite; events: readonly BalancerEvent[] },
): Promise<B | undefined> {
  const lease = pass.lease;
  if (lease && lease.op.kind !== "release" && !(await writeLease(kube, lease.lease, lease.op))) return undefined;
  const claim = await writeStatus(kube, balancer, pass.status, FIELD_MANAGER, { guarded: true });
  if (claim.kind === "conflict") return undefined;
  if (lease?.op.kind === "release") await writeLease(kube, lease.lease, lease.op);
  const claimed = claim.kind === "written" ? (claim.object as B) : balancer;
  for (const event of pass.events) await recorder.record(claimed, event.type, event.reason, event.note);
  return claimed;
}

/**
 * What a balancer's pass answers, for either kind: a claim another delivery or balancer got first
 * leaves the pass to it; a claimed pass is counted when it held, and says what it did.
 */
export function passAnswer(
  balancer: NatsSystemBalancer | NatsBalancer,
  decision: { status: { conditions?: Condition[] }; summary: string },
  acted: { kind: "done"; refused?: string } | { kind: "conflict" },
  schedules: readonly ScheduleDecision[],
): Acted {
  if (acted.kind === "conflict")
    return {
      kind: "conflict",
      message:
        "the balancer or its move lease changed while deciding; the pass is left to the delivery that claimed it",
      schedules,
    };
  countHeldPass(balancer, decision.status);
  return { kind: "done", summary: acted.refused ?? decision.summary, schedules };
}
