import { KubeRequestError } from "../../shared/kube/errors.ts";
import type { Kube } from "../../shared/kube/client.ts";
import type { KubeObject, ObjectKey } from "../../shared/kube/object.ts";
import { KINDS } from "../../shared/api/kinds.ts";
import { SELECTABLE_FIELDS } from "../../shared/api/selectable-fields.ts";

/**
 * The fields a field selector may name, by kind, beside metadata.name and metadata.namespace: a
 * CRD's selectableFields (shared/api/selectable-fields.ts, as the generated CRDs declare them),
 * and for built-in kinds the field labels the API server indexes (those the tests use).
 */
const BUILT_IN_FIELDS: Readonly<Record<string, readonly string[]>> = {
  "v1/Event": [
    "involvedObject.apiVersion",
    "involvedObject.fieldPath",
    "involvedObject.kind",
    "involvedObject.name",
    "involvedObject.namespace",
    "involvedObject.resourceVersion",
    "involvedObject.uid",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  "v1/Pod": ["spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "status.phase"],
  "v1/Secret": ["type"],
};

function selectableFieldsOf(apiVersion: string, kind: string): readonly string[] {
  const own = (SELECTABLE_FIELDS as Readonly<Record<string, readonly string[]>>)[kind];
  const isCustom = Object.values(KINDS).some((k) => k.kind === kind && k.apiVersion === apiVersion);
  return [
    "metadata.name",
    "metadata.namespace",
    ...(isCustom ? (own ?? []) : (BUILT_IN_FIELDS[`${apiVersion}/${kind}`] ?? [])),
  ];
}

interface FieldTerm {
  field: string;
  holds(value: string): boolean;
}

/** Splits `text` at each comma no backslash escapes; the parts keep their escapes. */
function splitTerms(text: string): string[] {
  const parts: string[] = [""];
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "\\" && i + 1 < text.length) parts[parts.length - 1] += c + text[++i];
    else if (c === ",") parts.push("");
    else parts[parts.length - 1] += c;
  }
  return parts;
}

/**
 * A field selector as the API server reads it: terms `f=v`, `f==v` or `f!=v` joined by commas,
 * values escaped as fields.EscapeValue does, each term on a field the kind can be selected by;
 * any other field is refused with 400, as the API server answers `field label not supported`.
 */
function parseFieldSelector(kind: string, apiVersion: string, selector: string | undefined): FieldTerm[] {
  if (!selector) return [];
  const allowed = selectableFieldsOf(apiVersion, kind);
  return splitTerms(selector).map((term) => {
    const match = /^([^!=\\]+)(!=|==|=)(.*)$/.exec(term);
    if (!match) throw new KubeRequestError(400, "BadRequest", `invalid field selector term "${term}"`);
    const [, field = "", op, escaped = ""] = match;
    if (!allowed.includes(field)) throw new KubeRequestError(400, "BadRequest", `field label not supported: ${field}`);
    const value = escaped.replace(/\\(.)/g, "$1");
    return { field, holds: (actual: string) => (op === "!=" ? actual !== value : actual === value) };
  });
}

/** A field's value as a selector compares it: "" when absent, numbers and booleans as text. */
function fieldValue(object: KubeObject, path: string): string {
  const value = path
    .split(".")
    .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], object);
  return value === undefined || value === null ? "" : String(value);
}

const keyString = (k: { apiVersion: string; kind: string; namespace?: string; name: string }) =>
  `${k.apiVersion}/${k.kind}/${k.namespace ?? ""}/${k.name}`;

export interface MemoryKubeOptions {
  /**
   * Plays the garbage collector and the end of deletion: an object whose deletion is pending goes
   * once its last finalizer does, and what an object gone owned (by uid) goes with it.
   */
  collectGarbage?: boolean;
}

type Status = Record<string, unknown> & { inputs?: Record<string, unknown> };

/**
 * The status after a server-side apply, as far as the tests need it: the applying manager's
 * fields replace the status, except `status.inputs`, whose entries are each function's own
 * manager's (shared/runtime/inputs.ts) and so survive another manager's apply and merge.
 */
function applied(current: KubeObject, status: unknown): unknown {
  const before = (current as KubeObject & { status?: Status }).status;
  const after = status as Status | undefined;
  if (!after || typeof after !== "object") return status;
  if (Object.keys(after).length === 1 && after.inputs)
    return { ...before, inputs: { ...before?.inputs, ...after.inputs } };
  return after.inputs || !before?.inputs ? status : { ...after, inputs: before.inputs };
}

/**
 * An in-memory API server for unit tests: objects by key, resourceVersions
 * that move on every write and guard replaces, and a log of the writes made.
 * Label selectors of the form `k=v,k2=v2` are honoured, and field selectors on the fields the
 * kind can be selected by (any other is a 400, as from the API server).
 */
export function memoryKube(seed: KubeObject[] = [], options: MemoryKubeOptions = {}) {
  const objects = new Map<string, KubeObject>();
  const writes: string[] = [];
  let version = 1;
  const collect = (gone: KubeObject) => {
    if (!options.collectGarbage || !gone.metadata.uid) return;
    for (const [key, object] of objects) {
      if (object.metadata.ownerReferences?.some((o) => o.uid === gone.metadata.uid)) {
        objects.delete(key);
        collect(object);
      }
    }
  };
  const store = <T extends KubeObject>(object: T): T => {
    const stored = {
      ...object,
      metadata: {
        ...object.metadata,
        resourceVersion: String(++version),
        uid: object.metadata.uid ?? `uid-${version}`,
      },
    };
    objects.set(keyString({ ...stored, ...stored.metadata }), stored);
    if (options.collectGarbage && stored.metadata.deletionTimestamp && !stored.metadata.finalizers?.length) {
      objects.delete(keyString({ ...stored, ...stored.metadata }));
      collect(stored);
    }
    return structuredClone(stored);
  };
  for (const object of seed) store(object);
  const existing = (key: ObjectKey) => objects.get(keyString(key));
  const guard = (object: KubeObject) => {
    const current = existing({
      apiVersion: object.apiVersion,
      kind: object.kind,
      namespace: object.metadata.namespace ?? "",
      name: object.metadata.name,
    });
    if (!current) throw new KubeRequestError(404, "NotFound", `${object.kind} ${object.metadata.name} not found`);
    if (object.metadata.resourceVersion && object.metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw new KubeRequestError(
        409,
        "Conflict",
        "the object has been modified; please apply your changes to the latest version and try again",
      );
    }
    return current;
  };
  const kube: Kube & { writes: string[]; objects: Map<string, KubeObject> } = {
    writes,
    objects,
    async get<T extends KubeObject>(key: ObjectKey) {
      const found = existing(key);
      return found ? (structuredClone(found) as T) : undefined;
    },
    async list<T extends KubeObject>(query: {
      apiVersion: string;
      kind: string;
      namespace?: string;
      labelSelector?: string;
      fieldSelector?: string;
    }) {
      const wanted = (query.labelSelector ?? "")
        .split(",")
        .filter(Boolean)
        .map((term) => term.split("="));
      const fields = parseFieldSelector(query.kind, query.apiVersion, query.fieldSelector);
      return [...objects.values()]
        .filter((o) => o.apiVersion === query.apiVersion && o.kind === query.kind)
        .filter((o) => query.namespace === undefined || o.metadata.namespace === query.namespace)
        .filter((o) => wanted.every(([k, v]) => k !== undefined && o.metadata.labels?.[k] === v))
        .filter((o) => fields.every((term) => term.holds(fieldValue(o, term.field))))
        .map((o) => structuredClone(o) as T);
    },
    async apply<T extends KubeObject>(object: T) {
      writes.push(`apply ${object.kind} ${object.metadata.name}`);
      return store(object);
    },
    async applyStatus<T extends KubeObject>(
      object: KubeObject & { status: unknown },
      _fieldManager: string,
      options: { guarded?: boolean } = {},
    ) {
      writes.push(`status ${object.kind} ${object.metadata.name}`);
      const current = guard({
        ...object,
        metadata: {
          ...object.metadata,
          resourceVersion: options.guarded ? object.metadata.resourceVersion : undefined,
        },
      });
      return store({ ...current, status: applied(current, object.status) }) as unknown as T;
    },
    async replaceStatus<T extends KubeObject>(object: T) {
      writes.push(`status ${object.kind} ${object.metadata.name}`);
      const current = guard(object);
      return store({ ...current, status: (object as T & { status?: unknown }).status }) as unknown as T;
    },
    async replace<T extends KubeObject>(object: T) {
      writes.push(`replace ${object.kind} ${object.metadata.name}`);
      guard(object);
      return store(object);
    },
    async patch<T extends KubeObject>(key: ObjectKey, patch: unknown) {
      writes.push(`patch ${key.kind} ${key.name}`);
      const current = existing(key);
      if (!current) throw new KubeRequestError(404, "NotFound", `${key.kind} ${key.name} not found`);
      const { metadata, ...rest } = (patch ?? {}) as { metadata?: Record<string, unknown> };
      // As the API server does: a resourceVersion in the patch is a precondition.
      if (metadata?.["resourceVersion"] !== undefined)
        guard({ ...current, metadata: { ...current.metadata, resourceVersion: String(metadata["resourceVersion"]) } });
      const merged = { ...current.metadata, ...metadata };
      // As a merge patch does for the maps of metadata: keys merged, null removes.
      for (const map of ["annotations", "labels"] as const) {
        const changes = metadata?.[map] as Record<string, string | null> | undefined;
        if (!changes) continue;
        const entries = Object.entries({ ...current.metadata[map], ...changes });
        merged[map] = Object.fromEntries(entries.filter(([, value]) => value !== null)) as Record<string, string>;
      }
      return store({ ...current, ...rest, metadata: merged } as T);
    },
    async create<T extends KubeObject>(object: T) {
      writes.push(`create ${object.kind} ${object.metadata.name}`);
      if (
        existing({
          apiVersion: object.apiVersion,
          kind: object.kind,
          namespace: object.metadata.namespace ?? "",
          name: object.metadata.name,
        })
      ) {
        throw new KubeRequestError(409, "AlreadyExists", `${object.kind} ${object.metadata.name} already exists`);
      }
      return store(object);
    },
    async delete(key: ObjectKey) {
      writes.push(`delete ${key.kind} ${key.name}`);
      const gone = existing(key);
      if (gone) collect(gone);
      return objects.delete(keyString(key));
    },
  };
  return kube;
}
