// The decision for one JetStream object, from what spec asks and what the
// server holds: create, wait, claim, update, recreate, leave alone, or stop
// (Terminal). Pure: every input is data, so each rule is a fixture test.
import { driftKeys, holds, isDefaultValue, overlay } from "../config/compare.ts";
import { isZero, type Spec, type Wire } from "../config/fields.ts";
import { readMarker, userMetadata, withMarker, type Origin } from "../config/marker.ts";

export type AdoptionPolicy = "Never" | "Adopt" | "AdoptOrCreate";
export type TerminalReason = "ExistsUnowned" | "OwnedByOther" | "Rejected" | "NotABucket" | "ImmutableField";

/** How one kind of object is described to the planner. */
export interface ObjectModel {
  /** "stream ORDERS", "consumer ORDERS/audit", "key-value bucket sessions" — used in messages. */
  what: string;
  /** Keys the spec could set; silent ones must sit at their default on objects we created. */
  modelled: readonly string[];
  defaults(server: Wire): Wire;
  /** Why an existing object of this name is not of this kind (a stream that is not a bucket). */
  shapeProblem?(server: Wire): string | undefined;
  /** Keys the server cannot change in place. */
  immutable?: readonly string[];
  /** Other changes the server refuses in place (a push consumer turning pull). */
  otherImmutableChanges?(wanted: Wire, server: Wire): string[];
  /** Whether a changed immutable key may be applied by delete and recreate. */
  recreateOnImmutableChange?: boolean;
}

export interface PlanInput {
  model: ObjectModel;
  uid: string;
  adoptionPolicy: AdoptionPolicy;
  /** Wire keys to hold: what the spec sets (and a bucket's template), without metadata. */
  desired: Wire;
  /** `spec.metadata`, when the spec has one. */
  specMetadata: Record<string, string> | undefined;
  /** The server config, or undefined when the object does not exist. */
  server: Wire | undefined;
  /** When the marker names another UID: whether a resource with that UID still exists. */
  foreignOwnerExists: boolean;
  /** The spec generation has not been applied yet: a difference is an edit, not drift. */
  pendingEdit: boolean;
}

export type Plan =
  | { kind: "create"; config: Wire }
  | { kind: "await"; message: string }
  | { kind: "terminal"; reason: TerminalReason; message: string }
  | { kind: "update"; config: Wire; origin: Origin; claimed: boolean; drift: string[]; edit: boolean }
  | { kind: "recreate"; config: Wire; origin: Origin; claimed: boolean; changed: string[] }
  | { kind: "settled"; origin: Origin };

export function planObject(input: PlanInput): Plan {
  const { model, uid, adoptionPolicy, desired, specMetadata, server } = input;
  if (server === undefined) {
    if (adoptionPolicy === "Adopt") {
      return {
        kind: "await",
        message: `${model.what} does not exist; adoptionPolicy Adopt waits for it and never creates it`,
      };
    }
    return { kind: "create", config: { ...desired, metadata: withMarker(specMetadata ?? {}, uid, "Created") } };
  }

  const shape = model.shapeProblem?.(server);
  if (shape) return { kind: "terminal", reason: "NotABucket", message: shape };

  const marker = readMarker(server.metadata);
  let origin: Origin = marker.origin;
  let claimed = false;
  if (marker.owner !== uid) {
    if (marker.owner !== undefined && input.foreignOwnerExists) {
      return {
        kind: "terminal",
        reason: "OwnedByOther",
        message: `${model.what} is owned by another resource (uid ${marker.owner})`,
      };
    }
    if (adoptionPolicy === "Never") {
      return {
        kind: "terminal",
        reason: "ExistsUnowned",
        message: `${model.what} exists and carries no ownership marker; set spec.adoptionPolicy to Adopt or AdoptOrCreate to take it over`,
      };
    }
    origin = "Adopted";
    claimed = true;
  }

  // Adopt takes the server's config as it is; the spec is rewritten from it.
  const wantedConfig = claimed && adoptionPolicy === "Adopt" ? {} : desired;
  const wanted: Wire = {
    ...wantedConfig,
    metadata: withMarker(specMetadata ?? userMetadata(server.metadata), uid, origin),
  };
  const defaults = model.defaults(server);
  const keepSilent = origin === "Adopted";

  const changed = immutableChanges(model, wanted, server, defaults);
  if (changed.length > 0) {
    if (!model.recreateOnImmutableChange) {
      return {
        kind: "terminal",
        reason: "ImmutableField",
        message: `${model.what} cannot change ${changed.join(", ")} in place; set spec.recreateOnImmutableChange to delete and recreate it (delivery state is lost)`,
      };
    }
    return { kind: "recreate", config: wanted, origin, claimed, changed };
  }

  const drift = driftKeys({ server, wanted, modelled: model.modelled, defaults, keepSilent });
  if (drift.length === 0) return { kind: "settled", origin };
  const reset = keepSilent ? [] : drift.filter((key) => !(key in wanted));
  return {
    kind: "update",
    config: overlay(server, wanted, reset),
    origin,
    claimed,
    drift,
    edit: input.pendingEdit || claimed,
  };
}

function immutableChanges(model: ObjectModel, wanted: Wire, server: Wire, defaults: Wire): string[] {
  const changed: string[] = [];
  for (const key of model.immutable ?? []) {
    if (!(key in wanted)) continue;
    const value = wanted[key];
    const same = holds(server[key], value) || (isZero(value) && isDefaultValue(server[key], defaults[key]));
    if (!same) changed.push(key);
  }
  return [...changed, ...(model.otherImmutableChanges?.(wanted, server) ?? [])];
}

/**
 * The merge patch that writes the server's config into spec: under Adopt, on
 * the claim, every config field is replaced; otherwise (late initialisation)
 * only top-level fields the spec leaves out are filled in.
 */
export function specWriteBack(
  spec: Spec,
  fromServer: Spec,
  configFields: readonly string[],
  mode: "replace" | "fill",
): Spec | undefined {
  const patch: Spec = {};
  for (const key of configFields) {
    const have = spec[key];
    const server = fromServer[key];
    if (mode === "replace") {
      if (server === undefined && have !== undefined) patch[key] = null;
      else if (server !== undefined && JSON.stringify(server) !== JSON.stringify(have)) patch[key] = server;
    } else if (have === undefined && server !== undefined) {
      patch[key] = server;
    }
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}
