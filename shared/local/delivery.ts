import type { CloudEvent } from "cloudevents";
import { dispatch, type DispatchDeps } from "../runtime/dispatch.ts";
import { recordEvent } from "../runtime/event-log.ts";
import type { OperatorFunction } from "../runtime/function.ts";
import type { Outcome } from "../runtime/outcome.ts";

/** How often and how patiently a retryable answer is redelivered. */
export interface DeliveryPolicy {
  retries: number;
  /** The first wait; each further one doubles. */
  backoffMs: number;
  /** Caps the doubling, for tests that want the same order of events sooner. */
  maxBackoffMs?: number;
}

/** The delivery spec of the Broker and Triggers in knative/: 10 retries, exponential from 0.5 s. */
export const brokerDelivery: DeliveryPolicy = { retries: 10, backoffMs: 500 };

export interface DeliveryOptions {
  signal: AbortSignal;
  policy?: DeliveryPolicy;
  /** Sees the outcome of every attempt, for logs and counting. */
  onAttempt?: (outcome: Outcome, attempt: number) => void;
  /**
   * A JSON Lines file each attempt is appended to before it is handled (NATS_OPERATOR_EVENT_LOG),
   * as the HTTP server records each request the Broker makes, redeliveries included.
   */
  eventLog?: string;
}

/**
 * Delivers one CloudEvent to one function as the Broker does: a conflict or a
 * transient failure is redelivered with exponential backoff until the retries
 * run out (then the Broker would dead-letter it) or the signal aborts.
 * Returns the last outcome.
 */
export async function deliverWithRetries(
  fn: OperatorFunction,
  ce: CloudEvent<unknown>,
  deps: DispatchDeps,
  options: DeliveryOptions,
): Promise<Outcome> {
  const policy = options.policy ?? brokerDelivery;
  let outcome: Outcome = { kind: "skipped", reason: "not delivered" };
  for (let attempt = 0; attempt <= policy.retries && !options.signal.aborted; attempt++) {
    if (options.eventLog !== undefined) await recordEvent(options.eventLog, ce, deps.log);
    outcome = await dispatch(fn, ce, deps);
    options.onAttempt?.(outcome, attempt);
    if (outcome.kind !== "conflict" && outcome.kind !== "retry") break;
    if (attempt < policy.retries)
      await sleep(Math.min(policy.backoffMs * 2 ** attempt, policy.maxBackoffMs ?? Infinity), options.signal);
  }
  return outcome;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
