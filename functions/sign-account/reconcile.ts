// One object's reconcile: observe, decide, act; once more after seeds were generated, so a new
// object is keyed and signed in one delivery, and once more after a push, so the decision after it
// sees which servers now hold the JWT (and records an acknowledged push's time); likewise after a
// delete request, so a delete every server took releases the finalizer in the same delivery; and
// after kicking a deleted user's connections, so a user none is left of goes in the same delivery.
import type { Kube } from "../../shared/kube/client.ts";
import type { EventRecorder } from "../../shared/kube/events.ts";
import type { ScheduleDecision } from "../../shared/runtime/schedule.ts";
import { act } from "./act.ts";
import { decide } from "./decide.ts";
import { describeSubject, type Subject } from "./objects.ts";
import type { KickOutcome } from "./user/deletion.ts";
import type { PushOutcome } from "./servers/distribution.ts";
import { observe } from "./observe.ts";
import { newRosterPolls, type RosterPolls } from "./servers/system-connection.ts";

export type Reconciled =
  | { kind: "done"; summary: string; schedules: ScheduleDecision[] }
  | { kind: "gone"; summary: string }
  | { kind: "conflict"; summary: string };

/** Generating takes one pass, signing and pushing the next, confirming the push a third: and a spare. */
const PASSES = 4;

export async function reconcile(
  kube: Kube,
  recorder: EventRecorder,
  subject: Subject,
  now: Date,
  rosters: RosterPolls = newRosterPolls(),
): Promise<Reconciled> {
  let lastPush: PushOutcome | undefined;
  let lastDelete: PushOutcome | undefined;
  let lastKick: KickOutcome | undefined;
  for (let pass = 0; pass < PASSES; pass++) {
    const read = await observe(kube, subject, lastPush, lastDelete, lastKick, rosters);
    if (!read) return { kind: "gone", summary: `${describeSubject(subject)} is gone` };
    const decision = decide(read.observed, now);
    const acted = await act(kube, recorder, read.keyring, decision, read.system, now);
    if (acted.kind === "conflict") return { kind: "conflict", summary: `${decision.summary} (lost to another write)` };
    const last = pass === PASSES - 1;
    // After the last pass's push the poll (kept by this decision) confirms it.
    if (acted.kind === "done" || (acted.kind !== "generated" && last))
      return { kind: "done", summary: decision.summary, schedules: decision.schedules };
    if (acted.kind === "pushed") lastPush = acted.outcome;
    if (acted.kind === "deleted") lastDelete = acted.outcome;
    if (acted.kind === "kicked") lastKick = acted.outcome;
  }
  return { kind: "conflict", summary: `${describeSubject(subject)}: seeds still missing after generating them` };
}
