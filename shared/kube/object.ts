/** The parts of Kubernetes object metadata the operator reads and writes. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

/** A reference that names one namespaced object. */
export interface ObjectKey {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export function keyOf(object: KubeObject): ObjectKey {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.metadata.namespace ?? "",
    name: object.metadata.name,
  };
}

export function describeKey(key: ObjectKey): string {
  return `${key.kind} ${key.namespace}/${key.name}`;
}

/** An owner reference that makes `owner` the controller of the object carrying it. */
export function controllerReference(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}
