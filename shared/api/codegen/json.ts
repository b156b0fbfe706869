// Plain JSON helpers for generated output.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A plain-JSON copy: drops TypeBox's non-enumerable markers and undefined values. */
export const toJson = (value: unknown): Json => JSON.parse(JSON.stringify(value)) as Json;

/** Sorts object keys at every level so output never depends on declaration order. */
export const sortKeys = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key] as Json)]),
  );
};
