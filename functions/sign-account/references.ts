// Following a reference (reads only): the object it names, and whether that object's namespace
// admits the referring object (the same namespace, or a NatsReferenceGrant there).
import { KINDS } from "../../shared/api/index.ts";
import { isAdmitted, type Kube, type KubeObject } from "../../shared/kube/index.ts";
import { asRead } from "./objects.ts";

export const readRef = async <T extends KubeObject>(
  kube: Kube,
  kind: keyof typeof KINDS,
  namespace: string,
  name: string,
) => asRead<T>(await kube.get({ apiVersion: KINDS[kind].apiVersion, kind, namespace, name }));

export const admits = (kube: Kube, from: KubeObject, toKind: keyof typeof KINDS, namespace: string, name: string) =>
  isAdmitted(
    kube,
    { group: KINDS[from.kind as keyof typeof KINDS].group, kind: from.kind, namespace: from.metadata.namespace ?? "" },
    { group: KINDS[toKind].group, kind: toKind, namespace, name },
  );
