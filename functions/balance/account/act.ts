// Carrying out an account-balancer pass: the move lease, then the status write that claims the
// pass (guarded by the resourceVersion read), then the Events, then the one leader move. A refused
// move keeps `lastMove`, so the retry waits `interval`.
import type { EventRecorder, Kube } from "../../../shared/kube/index.ts";
import type { NatsBalancer } from "./resource.ts";
import type { AccountDecision } from "./decide.ts";
import { type PassResult } from "../system/act.ts";
import type { MoveSender } from "../pass/claim.ts";
import { claimPass } from "../pass/claim.ts";

export async function actAccount(
  kube: Kube,
  recorder: EventRecorder,
  balancer: NatsBalancer,
  decision: AccountDecision,
  send: MoveSender,
): Promise<PassResult> {
  const claimed = await claimPass(kube, recorder, balancer, decision);
  if (!claimed) return { kind: "conflict" };
  if (!decision.move) return { kind: "done" };
  const refused = await send(decision.move);
  if (refused === undefined) return { kind: "done" };
  await recorder.record(claimed, "Warning", "MoveRefused", refused);
  return { kind: "done", refused };
}
