import type { Kube } from "./client.ts";
import { KubeRequestError } from "./errors.ts";
import type { KubeObject, ObjectKey } from "./object.ts";

export type ClaimResult<T> =
  /** The decision is recorded in the object; act on it now. */
  | { kind: "claimed"; object: T }
  /** The current object says there is nothing to decide. */
  | { kind: "unchanged"; object: T }
  /** Someone wrote the object first; the caller answers 409 and is retried. */
  | { kind: "conflict"; message: string }
  | { kind: "gone" };

/**
 * Records a decision that must happen once. Reads the object, lets `decide`
 * compute the next status from it, and writes that status guarded by the
 * resourceVersion that was read. Of several concurrent deliveries of the same
 * event, exactly one write succeeds; the others see a conflict and, retried,
 * read the decision already made.
 */
export async function claimInStatus<T extends KubeObject & { status?: unknown }>(
  kube: Kube,
  key: ObjectKey,
  decide: (current: T) => T["status"] | undefined,
): Promise<ClaimResult<T>> {
  const current = await kube.get<T>(key);
  if (!current) return { kind: "gone" };
  const status = decide(current);
  if (status === undefined) return { kind: "unchanged", object: current };
  try {
    return { kind: "claimed", object: await kube.replaceStatus<T>({ ...current, status }) };
  } catch (error) {
    if (error instanceof KubeRequestError && error.isConflict) return { kind: "conflict", message: error.message };
    if (error instanceof KubeRequestError && error.isNotFound) return { kind: "gone" };
    throw error;
  }
}

/**
 * Runs a write guarded by a resourceVersion: true when it held, false when someone else wrote
 * the object first (409), which a caller reads as "another delivery claimed it". Anything else
 * is thrown.
 */
export async function claimed(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof KubeRequestError && error.isConflict) return false;
    throw error;
  }
}
