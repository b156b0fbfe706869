// The one way functions write status. Every write goes through here so that it is skipped when
// nothing changed, owned by the function's field manager, a claim when guarded, and read by the
// condition and rollout gauges (`shared/telemetry/status-gauges.ts`).
import { redactStrings } from "../telemetry/redact.ts";
import { recordStatus } from "../telemetry/status-gauges.ts";
import type { Kube } from "./client.ts";
import { jsonEqual } from "./equal.ts";
import { guarded as unlessConflict } from "./guarded.ts";
import type { KubeRequestError } from "./errors.ts";
import type { KubeObject } from "./object.ts";

export type WithStatus<S> = KubeObject & { status?: S };

/** The fields of an object's status a write sets: all of them for a whole status, its own for an apply. */
export type StatusFields<T extends WithStatus<object>> = Partial<NonNullable<T["status"]>>;

/** What a status write came to; a lost claim is an answer, not an exception. */
export type StatusWrite<T> =
  /** Written; `object` is the object as the API server stored it. */
  | { kind: "written"; object: T }
  /** The object already shows this status: nothing was sent. */
  | { kind: "unchanged" }
  /** Guarded, and someone wrote the object since it was read (409): their write stands. */
  | { kind: "conflict"; error: KubeRequestError };

export interface StatusWriteOptions<T extends WithStatus<object>> {
  /**
   * The write carries the resourceVersion the object was read at and holds only if nobody wrote
   * the object since: of concurrent deliveries exactly one writes, so the write is a claim.
   * Leave it off where several functions own different fields of one status, or they would
   * conflict for nothing.
   */
  guarded?: boolean;
  /**
   * `status` is the object's whole status, every field and condition, whoever set them; what it
   * leaves out is removed. Sent as a guarded replace (PUT, recorded under `fieldManager`) rather
   * than an apply, because an apply cannot remove a field or list entry another manager also
   * owns (a function that re-applied the conditions it read co-owns them all). Implies `guarded`.
   */
  whole?: boolean;
  /**
   * The part of the current status `status` is compared with to skip an unchanged write: the
   * fields this manager owns, as the object shows them. The whole current status by default.
   */
  owned?: (current: T["status"]) => unknown;
  /**
   * With `whole`: the runtime's record of what the reconcile read (`status.inputs.<function>`,
   * shared/runtime/inputs.ts), written in the same request when the status is written anyway, so
   * a reconcile that writes its status pays no second write for the record. Not compared: a
   * status that is unchanged but for the record writes nothing, and the runtime writes the record.
   */
  record?: { readonly function: string; readonly text: string };
}

/**
 * Writes `status` through the status subresource unless the object already shows it: every
 * write feeds another update event and bumps the resourceVersion, so an unchanged world must
 * write nothing. By default a server-side apply under `fieldManager`, which owns just the
 * fields `status` names. Errors other than a lost guarded write are thrown. URL credentials in
 * any of its strings are redacted (`redactCredentials`).
 */
export async function writeStatus<T extends WithStatus<object>>(
  kube: Kube,
  object: T,
  unredacted: StatusFields<T>,
  fieldManager: string,
  options: StatusWriteOptions<T> = {},
): Promise<StatusWrite<T>> {
  // A message may quote a URL with credentials (a NatsConnection's, granted to this namespace):
  // redacted before the comparison, so the stored, redacted status reads as unchanged.
  const status = redactStrings(unredacted);
  const shown = options.owned ? options.owned(object.status) : withoutInputs(object.status);
  if (jsonEqual(shown, status)) {
    recordStatus(object, object.status);
    return { kind: "unchanged" };
  }
  const write = options.whole
    ? () =>
        kube.replaceStatus<T>({ ...object, status: withInputsOf(object.status, status, options.record) }, fieldManager)
    : () =>
        kube.applyStatus<T>(
          { apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata, status },
          fieldManager,
          { guarded: options.guarded === true },
        );
  // Only a guarded write can meet a 409: an apply forces its way over other managers.
  const result = await unlessConflict(write);
  if (result.kind === "conflict") return result;
  // The answer is the stored object; a fake transport may answer without one.
  const stored = result.value.status ?? (options.whole ? status : { ...object.status, ...status });
  recordStatus(object, stored);
  return { kind: "written", object: result.value };
}

/**
 * `status.inputs` is the runtime's record of what each function's reconcile read (written under
 * managers of its own, shared/runtime/inputs.ts): a function's status is compared without it, and
 * a whole status written by a function keeps it (with the reconcile's own record, when it carries one).
 */
function withoutInputs(status: unknown): unknown {
  if (status === null || typeof status !== "object" || !("inputs" in status)) return status;
  const { inputs: _inputs, ...rest } = status as Record<string, unknown>;
  return rest;
}

function withInputsOf(current: unknown, status: object, record?: StatusWriteOptions<never>["record"]): object {
  const inputs = (current as { inputs?: Record<string, unknown> } | undefined)?.inputs;
  if ("inputs" in status) return status;
  if (record) return { ...status, inputs: { ...inputs, [record.function]: record.text } };
  return inputs === undefined ? status : { ...status, inputs };
}
