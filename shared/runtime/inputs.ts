// The inputs of a reconcile: the objects of other kinds its observe read, which the resync sweep
// compares with the world so that a lost event of any of them is recovered (shared/runtime/resync.ts).
// Recorded, per function, in `status.inputs.<function>` as one line:
//
//   <digest> <ref> <ref> …
//
// where a ref is `<apiVersion>:<kind>:<namespace>/<name>` for an object read by name (absent ones
// too: one that appears is a change), or `…/*` for a namespace's listing of a kind (a grant made or
// deleted there is a change), or `…/<name>#<facet>` for an object of which the reader depends on a
// part only (a facet: what a user reads of its account). The digest is over each ref's version as
// it was read (an object's resourceVersion, a listing's names and resourceVersions, a facet's
// text) and over the generation of the object reconciled. The sweep lists what the refs name and
// reconciles again the objects whose digest no longer matches. A record is written only by a
// reconcile that finished, so the generation in it is the last one the function finished: where
// another function writes observedGeneration (a NatsCluster's is step-rollout's), a generation
// whose reconcile failed is still told from one done.
import { createHash } from "node:crypto";
import type { Kube, ListQuery } from "../kube/client.ts";
import type { KubeObject, ObjectKey } from "../kube/object.ts";
import { operatorVersion } from "../telemetry/version.ts";
import { qualifiedKind } from "./function.ts";
import type { InputFacet } from "./input-facet.ts";

export type { InputFacet } from "./input-facet.ts";

/** One input: an object read by name (`name`), or a namespace's listing of a kind (`name` "*"). */
export interface InputRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The facet the object is read through (`InputFacet.name`), when the reader depends on a part of it. */
  readonly facet?: string;
}

/** An input and its version as read: a resourceVersion, "" for an absent object, a digest for a listing. */
export interface InputRead extends InputRef {
  readonly version: string;
}

/** A record parsed: the digest it holds and the refs it was taken over. */
export interface InputRecord {
  readonly digest: string;
  readonly refs: readonly InputRef[];
}

/** What a function records inputs of: the kinds it takes events of (the kinds whose change it reacts to). */
export interface InputScope {
  readonly function: string;
  readonly kinds: ReadonlySet<string>;
  readonly facets?: readonly InputFacet[];
}

export const ALL = "*";

const refText = (ref: InputRef): string =>
  `${ref.apiVersion}:${ref.kind}:${ref.namespace}/${ref.name}${ref.facet ? `#${ref.facet}` : ""}`;

/** The facet `name` of inputs of the qualified kind `input`, if the function has one. */
const facetNamed = (facets: readonly InputFacet[], input: string, name: string): InputFacet | undefined =>
  facets.find((f) => f.input === input && f.name === name);

/** A listing's version: its items' names and resourceVersions, in name order. */
export function listingVersion(items: readonly KubeObject[]): string {
  const lines = items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion ?? ""}`).sort();
  return createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 16);
}

/**
 * The release the running functions are. Part of every digest, so that an upgrade of the operator
 * reconciles each object once at the next sweep (its rendering may have changed) and rewrites its
 * record under the new release. Read on first use: the kubectl plugin's bundle loads this module
 * but has no package.json beside it.
 */
let release: string | undefined;
const currentRelease = (): string => (release ??= operatorVersion());

/**
 * The digest of the inputs at the versions given (order does not matter), of the object at
 * `generation`, under the release `under`.
 */
export function digestOf(
  reads: readonly InputRead[],
  generation: number | undefined,
  under = currentRelease(),
): string {
  const lines = reads.map((r) => `${refText(r)}=${r.version}`).sort();
  return createHash("sha256")
    .update([`release=${under}`, `generation=${generation ?? ""}`, ...lines].join("\n"))
    .digest("hex")
    .slice(0, 16);
}

/** The record of a reconcile's reads of the object at `generation`: each ref once (the last read of it), the digest first. */
export function formatRecord(reads: readonly InputRead[], generation: number | undefined): string {
  const latest = new Map(reads.map((r) => [refText(r), r]));
  const unique = [...latest.values()];
  return [digestOf(unique, generation), ...[...latest.keys()].sort()].join(" ");
}

/** A record as written by `formatRecord`, or undefined when it does not parse. */
export function parseRecord(text: unknown): InputRecord | undefined {
  if (typeof text !== "string") return undefined;
  const [digest, ...words] = text.split(" ");
  if (digest === undefined || !/^[0-9a-f]{16}$/.test(digest)) return undefined;
  const refs: InputRef[] = [];
  for (const word of words) {
    const match = /^([^:\s]+):([^:\s/]+):([^:\s/]*)\/([^:\s/#]+)(?:#([a-z-]+))?$/.exec(word);
    if (!match?.[1] || !match[2] || match[3] === undefined || !match[4]) return undefined;
    const facet = match[5] ? { facet: match[5] } : {};
    refs.push({ apiVersion: match[1], kind: match[2], namespace: match[3], name: match[4], ...facet });
  }
  return { digest, refs };
}

/** The record a function keeps in an object's status, if any. */
export function recordOf(object: KubeObject, fn: string): unknown {
  const inputs = (object as KubeObject & { status?: { inputs?: Record<string, unknown> } }).status?.inputs;
  return inputs?.[fn];
}

/** Whether `object` is `self`'s child (its controller is `self`): an output, not an input. */
const controlledBy = (object: KubeObject, self: KubeObject): boolean =>
  self.metadata.uid !== undefined &&
  (object.metadata.ownerReferences ?? []).some((o) => o.controller === true && o.uid === self.metadata.uid);

/**
 * A client that notes what `self`'s observe reads of the kinds in scope: objects by name (other
 * than `self` and its children; through the scope's facet for `self`'s kind and theirs, if any)
 * and namespaced listings without a selector. Listings across every
 * namespace (a census of siblings or users) are not inputs: the objects in them reach `self`
 * through their own events and the dependents of their reconciles, and recording them would make
 * every change anywhere a change of every object.
 */
export function recordingReads(kube: Kube, self: KubeObject, scope: InputScope): { kube: Kube; reads(): InputRead[] } {
  const reads: InputRead[] = [];
  const inScope = (apiVersion: string, kind: string) => scope.kinds.has(qualifiedKind(apiVersion, kind));
  const reader = qualifiedKind(self.apiVersion, self.kind);
  const isSelf = (key: ObjectKey) =>
    key.apiVersion === self.apiVersion &&
    key.kind === self.kind &&
    key.name === self.metadata.name &&
    key.namespace === (self.metadata.namespace ?? "");
  return {
    kube: {
      ...kube,
      async get<T extends KubeObject>(key: ObjectKey) {
        const found = await kube.get<T>(key);
        if (inScope(key.apiVersion, key.kind) && !isSelf(key) && !(found && controlledBy(found, self))) {
          const input = qualifiedKind(key.apiVersion, key.kind);
          const facet = (scope.facets ?? []).find((f) => f.reader === reader && f.input === input);
          reads.push(
            facet
              ? { ...pick(key), facet: facet.name, version: found ? facet.version(found) : "" }
              : { ...pick(key), version: found?.metadata.resourceVersion ?? "" },
          );
        }
        return found;
      },
      async list<T extends KubeObject>(query: ListQuery) {
        const items = await kube.list<T>(query);
        if (inScope(query.apiVersion, query.kind) && query.namespace && !query.labelSelector && !query.fieldSelector)
          reads.push({
            apiVersion: query.apiVersion,
            kind: query.kind,
            namespace: query.namespace,
            name: ALL,
            version: listingVersion(items),
          });
        return items;
      },
    },
    reads: () => [...reads],
  };
}

const pick = (key: ObjectKey): InputRef => ({
  apiVersion: key.apiVersion,
  kind: key.kind,
  namespace: key.namespace,
  name: key.name,
});

/** Writes `record` as the function's entry of `status.inputs`, under a field manager of its own. */
export async function writeRecord(kube: Kube, object: KubeObject, fn: string, record: string): Promise<void> {
  await kube.applyStatus(
    {
      apiVersion: object.apiVersion,
      kind: object.kind,
      metadata: { name: object.metadata.name, namespace: object.metadata.namespace ?? "" },
      status: { inputs: { [fn]: record } },
    },
    `${INPUTS_FIELD_MANAGER_PREFIX}${fn}`,
  );
}

/** One field manager per function: an apply of one entry must not remove another function's. */
export const INPUTS_FIELD_MANAGER_PREFIX = "nats-operator/inputs-of-";

/**
 * The current versions of the refs, for the sweep: each namespace's listing of each kind read
 * once (`list`). A kind the function may only get is read by name, one object at a time. A ref
 * through a facet the function no longer has reads as the whole object (its reader is delivered).
 */
export async function currentVersions(
  refs: readonly InputRef[],
  list: (apiVersion: string, kind: string, namespace: string) => Promise<KubeObject[]>,
  get: (ref: InputRef) => Promise<KubeObject | undefined>,
  refused: (error: unknown) => boolean,
  facets: readonly InputFacet[] = [],
): Promise<Map<string, string>> {
  const versionOf = (ref: InputRef, object: KubeObject | undefined): string => {
    if (!object) return "";
    const facet = ref.facet ? facetNamed(facets, qualifiedKind(ref.apiVersion, ref.kind), ref.facet) : undefined;
    return facet ? facet.version(object) : (object.metadata.resourceVersion ?? "");
  };
  const groups = new Map<string, InputRef[]>();
  for (const ref of refs) {
    const group = `${ref.apiVersion}:${ref.kind}:${ref.namespace}`;
    groups.set(group, [...(groups.get(group) ?? []), ref]);
  }
  const versions = new Map<string, string>();
  for (const members of groups.values()) {
    const [first] = members;
    if (!first) continue;
    try {
      const items = await list(first.apiVersion, first.kind, first.namespace);
      const byName = new Map(items.map((o) => [o.metadata.name, o]));
      for (const ref of members)
        versions.set(refText(ref), ref.name === ALL ? listingVersion(items) : versionOf(ref, byName.get(ref.name)));
    } catch (error) {
      if (!refused(error) || members.some((m) => m.name === ALL)) throw error;
      const unique = new Map(members.map((m) => [refText(m), m]));
      for (const [text, ref] of unique) versions.set(text, versionOf(ref, await get(ref)));
    }
  }
  return versions;
}

/** The digest the record's refs come to at `versions`, for the object at `generation`. */
export const digestAt = (
  record: InputRecord,
  versions: ReadonlyMap<string, string>,
  generation: number | undefined,
): string =>
  digestOf(
    record.refs.map((ref) => ({ ...ref, version: versions.get(refText(ref)) ?? "" })),
    generation,
  );
