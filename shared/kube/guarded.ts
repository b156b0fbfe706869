import { KubeRequestError } from "./errors.ts";

/** What a write guarded by a precondition (a resourceVersion, or "must not exist yet") came to. */
export type Guarded<T> =
  /** The write held: this caller made the decision it records. */
  | { kind: "written"; value: T }
  /** Someone else wrote first (409): their decision stands; the caller reads it again or answers 409. */
  | { kind: "conflict"; error: KubeRequestError };

/** Whether the API server refused a write because another writer got there first. */
export function isConflict(error: unknown): error is KubeRequestError {
  return error instanceof KubeRequestError && error.isConflict;
}

/**
 * The one place a 409 becomes "someone else claimed it". Of concurrent deliveries making the
 * same guarded write, exactly one gets `written`; the others get `conflict` as a value, so
 * losing the race reads as an answer rather than a failure. Every other error is thrown.
 */
export async function guarded<T>(write: () => Promise<T>): Promise<Guarded<T>> {
  try {
    return { kind: "written", value: await write() };
  } catch (error) {
    if (isConflict(error)) return { kind: "conflict", error };
    throw error;
  }
}
