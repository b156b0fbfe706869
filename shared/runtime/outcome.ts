import { mergeSchedules, type ScheduleDecision } from "./schedule.ts";

/**
 * What handling one event came to. The Broker retries 5xx, 404, 408, 409 and
 * 429 and dead-letters other 4xx, so each outcome maps to the status that
 * makes it retry exactly what should be retried.
 */
export type Outcome = OutcomeKind & {
  /**
   * The schedules the decision asks for, kept or dropped by the runtime after `handle` returns,
   * whatever the kind: a conflict or a retry that knows its poll says it too. Unnamed ones are left.
   */
  readonly schedules?: readonly ScheduleDecision[];
};

type OutcomeKind =
  /** The desired state was acted on (or already held). */
  | { kind: "done"; summary?: string }
  /** Nothing to do: an echo of our own status write, an unhandled kind, an object gone. */
  | { kind: "skipped"; reason: string }
  /** An optimistic-concurrency conflict: retry soon against fresh state. */
  | { kind: "conflict"; message: string }
  /** A transient failure of the API server or NATS: retry with backoff. */
  | { kind: "retry"; message: string }
  /** The API server refused a request for good (400, 403, 422): told on the object, acknowledged. */
  | { kind: "refused"; message: string }
  /** The event itself cannot be understood; retrying will not help. */
  | { kind: "malformed"; message: string };

export const done = (summary?: string): Outcome =>
  summary === undefined ? { kind: "done" } : { kind: "done", summary };
export const skipped = (reason: string): Outcome => ({ kind: "skipped", reason });
export const conflict = (message: string): Outcome => ({ kind: "conflict", message });
export const retry = (message: string): Outcome => ({ kind: "retry", message });
export const refused = (message: string): Outcome => ({ kind: "refused", message });
export const malformed = (message: string): Outcome => ({ kind: "malformed", message });

/** The outcome, with `schedules` added after those it already asks for (later words win). */
export function withSchedules(outcome: Outcome, ...schedules: readonly (readonly ScheduleDecision[])[]): Outcome {
  const merged = mergeSchedules(outcome.schedules, ...schedules);
  return merged.length === 0 ? outcome : { ...outcome, schedules: merged };
}

export function httpStatusFor(outcome: Outcome): number {
  switch (outcome.kind) {
    case "done":
      return 200;
    case "skipped":
      return 202;
    case "conflict":
      return 409;
    case "retry":
      return 503;
    case "refused":
      // Retrying the same request gets the same answer; the object says what to fix.
      return 200;
    case "malformed":
      return 400;
  }
}
