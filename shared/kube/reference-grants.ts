// Cross-namespace references: admitted only by a NatsReferenceGrant in the
// target namespace, looked up on every reconcile so a deleted grant revokes. Shared by every
// function that follows references: sync-stream (connections) and the cluster functions (trusts).
import { KINDS } from "../api/kinds.ts";
import type { Kube } from "./client.ts";
import type { KubeObject } from "./object.ts";

export interface GrantSpec {
  from: { group: string; kind: string; namespace: string }[];
  to: { group: string; kind: string; name?: string }[];
}

export interface Referrer {
  group: string;
  kind: string;
  namespace: string;
}

export interface Referent {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

/** Whether one grant admits the reference (pure). */
export function grantAdmits(grant: GrantSpec, from: Referrer, to: Referent): boolean {
  const fromOk = grant.from.some(
    (f) => f.group === from.group && f.kind === from.kind && f.namespace === from.namespace,
  );
  const toOk = grant.to.some(
    (t) => t.group === to.group && t.kind === to.kind && (t.name === undefined || t.name === to.name),
  );
  return fromOk && toOk;
}

/** Same-namespace references need no grant; others need one in the target namespace. */
export async function isAdmitted(kube: Kube, from: Referrer, to: Referent): Promise<boolean> {
  if (from.namespace === to.namespace) return true;
  const grants = await kube.list<KubeObject & { spec?: GrantSpec }>({
    apiVersion: KINDS.NatsReferenceGrant.apiVersion,
    kind: KINDS.NatsReferenceGrant.kind,
    namespace: to.namespace,
  });
  return grants.some((g) => g.spec !== undefined && grantAdmits(g.spec, from, to));
}
