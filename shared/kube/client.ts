import { KubeRequestError } from "./errors.ts";
import type { KubeObject, ObjectKey } from "./object.ts";
import { resourcePath, resourceTypeOf } from "./resource-types.ts";
import type { KubeTransport } from "./transport.ts";

/** The Kubernetes operations functions use; small enough to fake in unit tests. */
export interface Kube {
  /** The object, or undefined when it does not exist. */
  get<T extends KubeObject>(key: ObjectKey): Promise<T | undefined>;
  list<T extends KubeObject>(query: ListQuery): Promise<T[]>;
  /** Server-side apply of the fields `fieldManager` owns; conflicts are forced. */
  apply<T extends KubeObject>(object: T, fieldManager: string): Promise<T>;
  /**
   * Server-side apply of `status` through the status subresource. With
   * `guarded`, the write carries the object's resourceVersion as a
   * precondition and fails with 409 when anyone wrote the object since.
   */
  applyStatus<T extends KubeObject>(
    object: KubeObject & { status: unknown },
    fieldManager: string,
    options?: { guarded?: boolean },
  ): Promise<T>;
  /**
   * Replaces the status of exactly the resourceVersion the object carries;
   * fails with a 409 conflict when anyone wrote the object since. With
   * `fieldManager`, the fields are recorded as that manager's.
   */
  replaceStatus<T extends KubeObject>(object: T, fieldManager?: string): Promise<T>;
  /** Replaces the whole object, guarded by its resourceVersion. */
  replace<T extends KubeObject>(object: T): Promise<T>;
  patch<T extends KubeObject>(key: ObjectKey, patch: unknown, type: PatchType): Promise<T>;
  create<T extends KubeObject>(object: T): Promise<T>;
  /** Deletes the object; false when it was already gone. */
  delete(key: ObjectKey, options?: DeleteOptions): Promise<boolean>;
}

export interface ListQuery {
  apiVersion: string;
  kind: string;
  /** Omitted: across all namespaces. */
  namespace?: string;
  labelSelector?: string;
  /** A field selector, such as `involvedObject.name=demo-0,reason=FailedCreate` (the fields the kind indexes). */
  fieldSelector?: string;
}

export type PatchType = "merge" | "json";

export interface DeleteOptions {
  /** Delete only if the object still has this uid and/or resourceVersion. */
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
}

const patchContentTypes: Record<PatchType | "apply", string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  apply: "application/apply-patch+yaml",
};

function pathOf(
  key: Pick<ObjectKey, "apiVersion" | "kind"> & { namespace?: string },
  name?: string,
  subresource?: string,
): string {
  return resourcePath(resourceTypeOf(key.apiVersion, key.kind), key.namespace, name, subresource);
}

function objectKey(object: KubeObject): ObjectKey {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.metadata.namespace ?? "",
    name: object.metadata.name,
  };
}

/** Drops what a write must not carry back to the server. */
function forWrite<T extends KubeObject>(object: T): T {
  const { managedFields: _managed, ...metadata } = object.metadata as T["metadata"] & { managedFields?: unknown };
  return { ...object, metadata };
}

export function createKube(transport: KubeTransport): Kube {
  return {
    async get<T extends KubeObject>(key: ObjectKey) {
      try {
        return (await transport.request("GET", pathOf(key, key.name))) as T;
      } catch (error) {
        if (error instanceof KubeRequestError && error.isNotFound) return undefined;
        throw error;
      }
    },
    async list<T extends KubeObject>(query: ListQuery) {
      const list = (await transport.request("GET", pathOf(query), {
        query: { labelSelector: query.labelSelector, fieldSelector: query.fieldSelector },
      })) as {
        items?: Omit<T, "apiVersion" | "kind">[];
      };
      // Items of a list carry no apiVersion and kind; give them back.
      return (list.items ?? []).map((item) => ({ ...item, apiVersion: query.apiVersion, kind: query.kind }) as T);
    },
    async apply<T extends KubeObject>(object: T, fieldManager: string) {
      const { resourceVersion: _rv, ...metadata } = forWrite(object).metadata;
      return (await transport.request("PATCH", pathOf(objectKey(object), object.metadata.name), {
        body: { ...object, metadata },
        contentType: patchContentTypes.apply,
        query: { fieldManager, force: true },
      })) as T;
    },
    async applyStatus<T extends KubeObject>(
      object: KubeObject & { status: unknown },
      fieldManager: string,
      options: { guarded?: boolean } = {},
    ) {
      const { apiVersion, kind, metadata, status } = object;
      const precondition = options.guarded ? { resourceVersion: metadata.resourceVersion } : {};
      return (await transport.request("PATCH", pathOf(objectKey(object), metadata.name, "status"), {
        body: {
          apiVersion,
          kind,
          metadata: { name: metadata.name, namespace: metadata.namespace, ...precondition },
          status,
        },
        contentType: patchContentTypes.apply,
        query: { fieldManager, force: true },
      })) as T;
    },
    async replaceStatus<T extends KubeObject>(object: T, fieldManager?: string) {
      return (await transport.request("PUT", pathOf(objectKey(object), object.metadata.name, "status"), {
        body: forWrite(object),
        ...(fieldManager ? { query: { fieldManager } } : {}),
      })) as T;
    },
    async replace<T extends KubeObject>(object: T) {
      return (await transport.request("PUT", pathOf(objectKey(object), object.metadata.name), {
        body: forWrite(object),
      })) as T;
    },
    async patch<T extends KubeObject>(key: ObjectKey, patch: unknown, type: PatchType) {
      return (await transport.request("PATCH", pathOf(key, key.name), {
        body: patch,
        contentType: patchContentTypes[type],
      })) as T;
    },
    async create<T extends KubeObject>(object: T) {
      return (await transport.request("POST", pathOf(objectKey(object)), { body: forWrite(object) })) as T;
    },
    async delete(key: ObjectKey, options: DeleteOptions = {}) {
      try {
        await transport.request("DELETE", pathOf(key, key.name), {
          body: { apiVersion: "v1", kind: "DeleteOptions", ...options },
        });
        return true;
      } catch (error) {
        if (error instanceof KubeRequestError && error.isNotFound) return false;
        throw error;
      }
    },
  };
}
