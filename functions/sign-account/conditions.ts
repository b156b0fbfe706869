// The conditions every auth object shows, and the Warning Event that tells a refusal once, when
// Ready turns to it, rather than on every delivery.
import { type Condition, type ConditionUpdate, setConditions } from "../../shared/kube/index.ts";
import type { AuthEvent } from "./decision.ts";
import type { Reason } from "../../shared/api/index.ts";

/** Why an object is not Ready: a condition reason and a message naming the object. */
export interface Refusal {
  reason: Reason;
  message: string;
}

export const ready = (message: string, reason: Reason = "Signed"): ConditionUpdate => ({
  type: "Ready",
  status: "True",
  reason,
  message,
});

export const notReady = ({ reason, message }: Refusal): ConditionUpdate => ({
  type: "Ready",
  status: "False",
  reason,
  message,
});

export const referencesResolved = (): ConditionUpdate => ({
  type: "ReferencesResolved",
  status: "True",
  reason: "Resolved",
  message: "every reference resolves",
});

/** ReferencesResolved of an account with imports, every one of them in its JWT. */
export const allImportsResolved = (): ConditionUpdate => ({
  type: "ReferencesResolved",
  status: "True",
  reason: "AllImportsResolved",
  message: "every reference and import resolves",
});

export const referencesUnresolved = (reason: Reason, message: string): ConditionUpdate => ({
  type: "ReferencesResolved",
  status: "False",
  reason,
  message,
});

/** Whether the account's JWT may lack revocations the servers hold (True: not pushed until they answer). */
export const revocationsUnrecovered = (status: "True" | "False", reason: Reason, message: string): ConditionUpdate => ({
  type: "RevocationsUnrecovered",
  status,
  reason,
  message,
});

/** Nothing is pushed to servers yet: no system connection is configured. */
export const noSystemConnection = (): ConditionUpdate => ({
  type: "Distributed",
  status: "False",
  reason: "NoSystemConnection",
  message: "no system connection is configured: the JWT is signed into status only, nothing is pushed to servers",
});

/** A refused user with a system connection: there is no JWT of it for the servers to accept. */
export const notSigned = (): ConditionUpdate => ({
  type: "Distributed",
  status: "False",
  reason: "NotSigned",
  message: "not signed: there are no creds for the servers to accept",
});

/** Reasons that only say something is on its way: no Warning for them. */
const WAITING: ReadonlySet<string> = new Set<Reason>(["Pending"]);

/**
 * Merges the updates; a Warning Event when Ready turns False or changes its reason while False,
 * unless it only waits for another object to catch up.
 */
export function nextConditions(
  previous: readonly Condition[] | undefined,
  updates: readonly ConditionUpdate[],
  now: Date,
): { conditions: Condition[]; events: AuthEvent[] } {
  const conditions = setConditions(previous, updates, now);
  const before = previous?.find((c) => c.type === "Ready");
  const after = conditions.find((c) => c.type === "Ready");
  const events: AuthEvent[] =
    after &&
    after.status === "False" &&
    !WAITING.has(after.reason) &&
    (before?.status !== "False" || before.reason !== after.reason)
      ? [{ type: "Warning", reason: after.reason, note: after.message }]
      : [];
  return { conditions, events };
}

/**
 * `status` with the conditions updated, and observedGeneration moved to `generation` only when
 * Ready is True: it stays at the last generation reconciled in full.
 */
export function settle<S extends { conditions?: Condition[]; observedGeneration?: number }>(
  previous: S,
  status: S,
  updates: readonly ConditionUpdate[],
  generation: number | undefined,
  now: Date,
): { status: S; events: AuthEvent[] } {
  const { conditions, events } = nextConditions(previous.conditions, updates, now);
  const done = updates.some((u) => u.type === "Ready" && u.status === "True");
  const observedGeneration = done ? generation : previous.observedGeneration;
  return {
    status: { ...status, ...(observedGeneration !== undefined ? { observedGeneration } : {}), conditions },
    events,
  };
}
