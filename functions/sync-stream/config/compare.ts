// Drift: which keys of a server config differ from what is wanted.
import { isZero, type Wire } from "./fields.ts";
import { isReservedMetadataKey } from "./marker.ts";

/** Whether the server value holds the wanted one: objects key by key (extra server keys ignored), arrays element-wise. */
export function holds(server: unknown, wanted: unknown): boolean {
  if (server === undefined || server === null) return isZero(wanted);
  if (Array.isArray(wanted)) {
    return Array.isArray(server) && server.length === wanted.length && wanted.every((w, i) => holds(server[i], w));
  }
  if (typeof wanted === "object" && wanted !== null) {
    if (typeof server !== "object" || Array.isArray(server)) return false;
    const s = server as Wire;
    return Object.entries(wanted as Wire).every(([k, w]) => holds(s[k], w));
  }
  if (wanted === undefined || wanted === null) return isZero(server);
  return server === wanted;
}

/** Whether a value is what the server has when nobody asked for anything. */
export function isDefaultValue(value: unknown, fallback: unknown): boolean {
  return isZero(value) || (fallback !== undefined && holds(value, fallback) && holds(fallback, value));
}

export function metadataMatches(server: unknown, wanted: Record<string, string>): boolean {
  const actual = Object.entries((server ?? {}) as Record<string, string>).filter(([k]) => !isReservedMetadataKey(k));
  const expected = Object.entries(wanted).filter(([k]) => !isReservedMetadataKey(k));
  return actual.length === expected.length && expected.every(([k, v]) => (server as Record<string, string>)[k] === v);
}

export interface DriftInput {
  server: Wire;
  /** Keys to hold (the spec's, the template's), with `metadata` the full wanted user metadata plus marker. */
  wanted: Wire;
  /** Keys the spec could set; when it does not, the server must show them at their default. */
  modelled: readonly string[];
  defaults: Wire;
  /** Adopted objects keep their config where the spec is silent. */
  keepSilent: boolean;
}

/** The keys that differ, in a stable order. */
export function driftKeys(input: DriftInput): string[] {
  const { server, wanted, modelled, defaults, keepSilent } = input;
  const drift: string[] = [];
  for (const [key, value] of Object.entries(wanted)) {
    if (key === "metadata") {
      if (!metadataMatches(server.metadata, value as Record<string, string>)) drift.push(key);
    } else if (!holds(server[key], value) && !(isZero(value) && isDefaultValue(server[key], defaults[key]))) {
      drift.push(key);
    }
  }
  if (!keepSilent) {
    for (const key of modelled) {
      if (key in wanted) continue;
      if (!isDefaultValue(server[key], defaults[key])) drift.push(key);
    }
  }
  return drift;
}

/**
 * The config to send: the server's own (so keys we do not model survive),
 * with every wanted key laid over it and the drifted keys the spec is silent
 * about taken out, so the server puts them back to their defaults.
 */
export function overlay(server: Wire, wanted: Wire, reset: readonly string[]): Wire {
  const body = Object.fromEntries(Object.entries(server).filter(([key]) => !reset.includes(key)));
  return { ...body, ...wanted };
}
