// Objects of a rendered name are written only when this NatsCluster controls them.
import type { KubeObject } from "./object.ts";

export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  return object.metadata.ownerReferences?.some((o) => o.controller === true && o.uid === owner.metadata.uid) ?? false;
}

export const describeObject = (object: KubeObject): string => `${object.kind} ${object.metadata.name}`;
