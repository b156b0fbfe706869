// One object's reconcile: observe, decide, act; once more after seeds were generated, so a new
// object is keyed and signed in one delivery.
import type { Kube } from "../../shared/kube/client.ts";
import type { EventRecorder } from "../../shared/kube/events.ts";
import type { ScheduleDecision } from "../../shared/runtime/schedule.ts";
import { act } from "./act.ts";
import { decide } from "./decide.ts";
import { describeSubject, type Subject } from "./objects.ts";
import { observe } from "./observe.ts";

export type Reconciled =
  | { kind: "done"; summary: string; schedules: ScheduleDecision[] }
  | { kind: "gone"; summary: string }
  | { kind: "conflict"; summary: string };

/** Generating takes one pass, signing the next: two passes and a spare. */
const PASSES = 3;

export async function reconcile(kube: Kube, recorder: EventRecorder, subject: Subject, now: Date): Promise<Reconciled> {
  for (let pass = 0; pass < PASSES; pass++) {
    const read = await observe(kube, subject);
    if (!read) return { kind: "gone", summary: `${describeSubject(subject)} is gone` };
    const decision = decide(read.observed, now);
    const acted = await act(kube, recorder, read.keyring, decision);
    if (acted.kind === "conflict") return { kind: "conflict", summary: `${decision.summary} (lost to another write)` };
    if (acted.kind === "done") return { kind: "done", summary: decision.summary, schedules: decision.schedules };
  }
  return { kind: "conflict", summary: `${describeSubject(subject)}: seeds still missing after generating them` };
}
