// A declarative table of how spec fields (camelCase, Kubernetes units) map to
// the JSON nats-server speaks (snake_case, nanoseconds, bytes), both ways.
import { bytesToQuantity, durationToNanos, nanosToDuration, quantityToBytes } from "./units.ts";

export type Wire = Record<string, unknown>;
export type Spec = Record<string, unknown>;

/** Converts one value; `toSpec` answers undefined for a value spec should not carry (zero). */
export interface Codec {
  toWire(value: unknown): unknown;
  toSpec(value: unknown): unknown;
}

export interface Field {
  spec: string;
  wire: string;
  codec: Codec;
}

export class InvalidSpecValue extends Error {
  override readonly name = "InvalidSpecValue";
}

const isZero = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  value === false ||
  value === 0 ||
  value === "" ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every(isZero));

const keepNonZero = (value: unknown) => (isZero(value) ? undefined : value);

export const plain: Codec = { toWire: (v) => v, toSpec: keepNonZero };

export const duration: Codec = {
  toWire(v) {
    const nanos = typeof v === "number" ? v : durationToNanos(String(v));
    if (nanos === undefined) throw new InvalidSpecValue(`"${String(v)}" is not a duration`);
    return nanos;
  },
  toSpec: (v) => (typeof v === "number" && v !== 0 ? nanosToDuration(v) : undefined),
};

export const quantity: Codec = {
  toWire(v) {
    const bytes = quantityToBytes(v as string | number);
    if (bytes === undefined) throw new InvalidSpecValue(`"${String(v)}" is not a quantity`);
    return bytes;
  },
  toSpec: (v) => (typeof v === "number" && v !== 0 ? bytesToQuantity(v) : undefined),
};

/** Spec enum spellings to server spellings ("WorkQueue" → "workqueue"). */
export function oneOf(mapping: Record<string, string>): Codec {
  const back = Object.fromEntries(Object.entries(mapping).map(([k, v]) => [v, k]));
  return {
    toWire(v) {
      const wire = mapping[String(v)];
      if (wire === undefined)
        throw new InvalidSpecValue(`"${String(v)}" is not one of ${Object.keys(mapping).join(", ")}`);
      return wire;
    },
    toSpec: (v) => (typeof v === "string" ? back[v] : undefined),
  };
}

export const listOf = (item: Codec): Codec => ({
  toWire: (v) => (v as unknown[]).map((x) => item.toWire(x)),
  toSpec: (v) => (Array.isArray(v) && v.length > 0 ? v.map((x) => item.toSpec(x) ?? x) : undefined),
});

/** A nested object with its own field table. */
export const struct = (fields: readonly Field[]): Codec => ({
  toWire: (v) => specToWire(v as Spec, fields),
  toSpec: (v) => {
    const spec = wireToSpec(v as Wire, fields);
    return Object.keys(spec).length > 0 ? spec : undefined;
  },
});

export const field = (spec: string, wire: string = snake(spec), codec: Codec = plain): Field => ({ spec, wire, codec });

function snake(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The wire config for the fields a spec sets; fields it leaves out are left out. */
export function specToWire(spec: Spec, fields: readonly Field[]): Wire {
  const wire: Wire = {};
  for (const f of fields) {
    const value = spec[f.spec];
    if (value === undefined || value === null) continue;
    wire[f.wire] = f.codec.toWire(value);
  }
  return wire;
}

/** The spec fields a server config holds, zero values dropped. */
export function wireToSpec(wire: Wire, fields: readonly Field[]): Spec {
  const spec: Spec = {};
  for (const f of fields) {
    const value = wire[f.wire];
    if (value === undefined || value === null) continue;
    const converted = f.codec.toSpec(value);
    if (converted !== undefined) spec[f.spec] = converted;
  }
  return spec;
}

export { isZero };
