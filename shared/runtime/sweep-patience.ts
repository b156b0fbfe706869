// How a resync sweep tries again what failed for now. Its deliveries are made in the function's own
// process, not through the Broker, so no one else retries them: a delivery that answers retry or
// conflict, and a read that fails transiently (429, 503, no answer), is made again with backoff, as
// the Broker does for an event, a few times. The waits stop once the sweep has run for its window,
// so a sweep over many objects that all fail (their servers down) stays within the function's
// request timeout; what is still failing then is the next tick's.
import type { Outcome } from "./outcome.ts";

export interface SweepPatience {
  /** Attempts of each read and delivery, the first included. */
  readonly attempts: number;
  /** The first wait; each further one doubles. */
  readonly backoffMs: number;
  /** No wait begins later than this after the sweep started. */
  readonly windowMs: number;
}

/** Four attempts 0.5, 1 and 2 s apart, within 20 s: well inside the functions' 120 s timeout. */
export const SWEEP_PATIENCE: SweepPatience = { attempts: 4, backoffMs: 500, windowMs: 20_000 };

/** One sweep's patience: its start, and how many attempts it made beyond the first of each. */
export interface Patience {
  /** A read; a failure `transient` says is passing is tried again. */
  read<T>(attempt: () => Promise<T>, transient: (error: unknown) => boolean): Promise<T>;
  /** A delivery; an answer of retry or conflict is delivered again. */
  deliver(attempt: () => Promise<Outcome>): Promise<Outcome>;
  /** Attempts made again so far, reads and deliveries. */
  readonly again: number;
}

export function patienceOf(policy: SweepPatience, clock: () => number = () => performance.now()): Patience {
  const started = clock();
  let again = 0;
  /** Waits before attempt `next` (2 or later) and answers true, or answers false when it may not. */
  const waitBefore = async (next: number): Promise<boolean> => {
    const delay = policy.backoffMs * 2 ** (next - 2);
    if (next > policy.attempts || clock() - started + delay > policy.windowMs) return false;
    await new Promise((resolve) => setTimeout(resolve, delay));
    again++;
    return true;
  };
  return {
    async read(attempt, transient) {
      for (let next = 2; ; next++) {
        try {
          return await attempt();
        } catch (error) {
          if (!transient(error) || !(await waitBefore(next))) throw error;
        }
      }
    },
    async deliver(attempt) {
      for (let next = 2; ; next++) {
        const outcome = await attempt();
        if ((outcome.kind !== "retry" && outcome.kind !== "conflict") || !(await waitBefore(next))) return outcome;
      }
    },
    get again() {
      return again;
    },
  };
}
