// Carrying out an account-balancer pass: the move lease, then the status write that claims the
// pass (guarded by the resourceVersion read), then the Events, then the one leader move. A refused
// move keeps `lastMove`, so the retry waits `interval`.
import type { Kube } from "../../shared/kube/client.ts";
import type { EventRecorder } from "../../shared/kube/events.ts";
import { writeStatus } from "../../shared/kube/status.ts";
import type { NatsBalancer } from "./account-balancer.ts";
import type { AccountDecision } from "./account-decide.ts";
import { type Acted, FIELD_MANAGER, type MoveSender } from "./act.ts";
import { writeLease } from "./lease.ts";

export async function actAccount(
  kube: Kube,
  recorder: EventRecorder,
  balancer: NatsBalancer,
  decision: AccountDecision,
  send: MoveSender,
): Promise<Acted> {
  const lease = decision.lease;
  if (lease && lease.op.kind !== "release" && !(await writeLease(kube, lease.lease, lease.op)))
    return { kind: "conflict" };
  const claim = await writeStatus(kube, balancer, decision.status, FIELD_MANAGER, { guarded: true });
  if (claim.kind === "conflict") return { kind: "conflict" };
  if (lease?.op.kind === "release") await writeLease(kube, lease.lease, lease.op);
  const claimed = claim.kind === "written" ? claim.object : balancer;
  for (const event of decision.events) await recorder.record(claimed, event.type, event.reason, event.note);
  if (!decision.move) return { kind: "done" };
  const refused = await send(decision.move);
  if (refused === undefined) return { kind: "done" };
  await recorder.record(claimed, "Warning", "MoveRefused", refused);
  return { kind: "done", refused };
}
