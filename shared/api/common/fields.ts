// Field builders for the API schemas. Every builder takes the field's
// description first, so no field can be declared without one; the output is
// plain JSON Schema (structural in the Kubernetes sense) plus a static type.
import { Type, type Static, type TSchema, type TProperties, type TObject, type TUnsafe } from "typebox";

/** A CEL rule as the API server reads it from `x-kubernetes-validations`. */
export interface CelRule {
  readonly rule: string;
  readonly message: string;
  /** Where the refusal points, relative to the schema holding the rule (e.g. `.version`). */
  readonly fieldPath?: string;
  /** Kubernetes reason for the refusal; FieldValueInvalid when omitted. */
  readonly reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
  /** Re-evaluate on update even when the old value already broke the rule. */
  readonly optionalOldSelf?: boolean;
}

/** Options most builders accept on top of their own. */
export interface FieldOptions {
  readonly default?: unknown;
  readonly rules?: readonly CelRule[];
}

const withRules = (rules: readonly CelRule[] | undefined): Record<string, unknown> =>
  rules && rules.length > 0 ? { "x-kubernetes-validations": rules.map((r) => ({ ...r })) } : {};

const withDefault = (value: unknown): Record<string, unknown> => (value === undefined ? {} : { default: value });

export interface TextOptions extends FieldOptions {
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: string;
}

/** A string field. */
export const Text = (description: string, options: TextOptions = {}) => {
  const { rules, default: value, ...rest } = options;
  return Type.String({ description, ...rest, ...withDefault(value), ...withRules(rules) });
};

/** A string that must not be empty. */
export const NonEmptyText = (description: string, options: TextOptions = {}) =>
  Text(description, { minLength: 1, ...options });

export interface NumberOptions extends FieldOptions {
  readonly minimum?: number;
  readonly maximum?: number;
}

/** A 32-bit integer field. */
export const Int32 = (description: string, options: NumberOptions = {}) => {
  const { rules, default: value, ...rest } = options;
  return Type.Integer({ description, format: "int32", ...rest, ...withDefault(value), ...withRules(rules) });
};

/** A 64-bit integer field. JSON numbers stay exact up to 2^53, which covers every count we keep. */
export const Int64 = (description: string, options: NumberOptions = {}) => {
  const { rules, default: value, ...rest } = options;
  return Type.Integer({ description, format: "int64", ...rest, ...withDefault(value), ...withRules(rules) });
};

/** A boolean field. */
export const Flag = (description: string, options: FieldOptions = {}) =>
  Type.Boolean({ description, ...withDefault(options.default), ...withRules(options.rules) });

/** A string restricted to a fixed set of values. */
export const OneOf = <const Values extends readonly [string, ...string[]]>(
  values: Values,
  description: string,
  options: FieldOptions = {},
): TUnsafe<Values[number]> =>
  Type.Unsafe<Values[number]>({
    type: "string",
    description,
    enum: [...values],
    ...withDefault(options.default),
    ...withRules(options.rules),
  });

export interface ListOptions extends FieldOptions {
  readonly minItems?: number;
  readonly maxItems?: number;
  /** Kubernetes list semantics for server-side apply. */
  readonly listType?: "atomic" | "set" | "map";
  readonly listMapKeys?: readonly string[];
}

/** A list of items of one schema. */
export const ListOf = <Item extends TSchema>(item: Item, description: string, options: ListOptions = {}) => {
  const { rules, default: value, listType, listMapKeys, ...rest } = options;
  return Type.Array(item, {
    description,
    ...rest,
    ...(listType ? { "x-kubernetes-list-type": listType } : {}),
    ...(listMapKeys ? { "x-kubernetes-list-map-keys": [...listMapKeys] } : {}),
    ...withDefault(value),
    ...withRules(rules),
  });
};

export interface StructOptions extends FieldOptions {
  readonly minProperties?: number;
}

/** An object with named properties. */
export const Struct = <Props extends TProperties>(
  properties: Props,
  description: string,
  options: StructOptions = {},
): TObject<Props> => {
  const { rules, default: value, ...rest } = options;
  return Type.Object(properties, { description, ...rest, ...withDefault(value), ...withRules(rules) });
};

/** A map from string keys to values of one schema. */
export const MapOf = <Value extends TSchema>(value: Value, description: string, options: FieldOptions = {}) =>
  Type.Unsafe<Record<string, Static<Value>>>({
    type: "object",
    description,
    additionalProperties: value,
    ...withDefault(options.default),
    ...withRules(options.rules),
  });

/** A map from string keys to string values (labels, annotations, tags, metadata). */
export const StringMap = (description: string, options: FieldOptions = {}) =>
  MapOf(Type.String(), description, options);

/**
 * An object whose content the API server keeps without checking it. Used only
 * where a whole Kubernetes type is embedded and we merge it as given.
 */
export const FreeForm = (description: string) =>
  Type.Unsafe<Record<string, unknown>>({
    type: "object",
    description,
    "x-kubernetes-preserve-unknown-fields": true,
  });

/** Marks a property optional. */
export const Optional = Type.Optional;
