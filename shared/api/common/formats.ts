// Value formats shared across kinds: Kubernetes durations, quantities and times.
import { Type, type TUnsafe } from "typebox";
import type { CelRule, FieldOptions } from "./fields.ts";

/**
 * A Go-style duration as Kubernetes writes it (`30s`, `1m`, `72h`, `168h0m0s`);
 * `0` alone is also a duration. CEL's `duration()` parses the same syntax.
 */
export const DURATION_PATTERN = "^-?(0|([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$";

/** A Kubernetes quantity (`1Gi`, `500m`, `64Ki`, `-1`), as a string or a bare number. */
export const QUANTITY_PATTERN =
  "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

/** Durations and quantities are short; bounding them keeps CEL cost estimates low. */
const SHORT_VALUE_MAX_LENGTH = 64;

const withRules = (rules: readonly CelRule[] | undefined): Record<string, unknown> =>
  rules && rules.length > 0 ? { "x-kubernetes-validations": rules.map((r) => ({ ...r })) } : {};

/** A duration string such as `1m` or `48h`. */
export const Duration = (description: string, options: FieldOptions = {}) =>
  Type.String({
    description,
    pattern: DURATION_PATTERN,
    maxLength: SHORT_VALUE_MAX_LENGTH,
    ...(options.default === undefined ? {} : { default: options.default }),
    ...withRules(options.rules),
  });

/** A byte size or other Kubernetes quantity: `1Gi`, `500m`, or a plain integer. */
export const Quantity = (description: string, options: FieldOptions = {}): TUnsafe<string | number> =>
  Type.Unsafe<string | number>({
    description,
    anyOf: [{ type: "integer" }, { type: "string" }],
    pattern: QUANTITY_PATTERN,
    "x-kubernetes-int-or-string": true,
    ...(options.default === undefined ? {} : { default: options.default }),
    ...withRules(options.rules),
  });

/** A point in time, RFC 3339. */
export const Time = (description: string, options: FieldOptions = {}) =>
  Type.String({ description, format: "date-time", ...withRules(options.rules) });
