// The NatsClusters an input's event concerns. A NatsCluster's rendered config is made of more than
// the NatsCluster: the Secrets its spec names (TLS certificates, system credentials), the trusts
// its `spec.auth` names, the NatsConnections its leaf remotes dial (their URLs and creds), and the
// NatsReferenceGrants that admit those references across namespaces. A change of any of them is a
// new revision for each NatsCluster that uses it (a rotated certificate is reloaded by step-rollout).
import type { Kube } from "../../shared/kube/index.ts";
import {
  type KindRef,
  type ObjectRef,
  qualifiedKind,
  type Related,
  type RelatedContext,
} from "../../shared/runtime/index.ts";
import { KINDS } from "../../shared/api/index.ts";
import {
  asCluster,
  type Cluster,
  CLUSTER_API_VERSION,
  CLUSTER_KIND,
  CLUSTER_REF,
  PLAN_INPUT_KINDS,
  planCertificates,
} from "../cluster/index.ts";

/** The kinds a rendered config is made of besides the NatsCluster. */
const INPUTS: readonly KindRef[] = PLAN_INPUT_KINDS;

const INPUT_KINDS = INPUTS.map((k) => qualifiedKind(k.apiVersion, k.kind));

export const isInputRef = (ref: ObjectRef): boolean => INPUT_KINDS.includes(qualifiedKind(ref.apiVersion, ref.kind));

/** Whether the cluster's auth names the trust (pure); an omitted namespace is the cluster's own. */
export function namesTrust(cluster: Cluster, trust: ObjectRef): boolean {
  const auth = cluster.spec.auth;
  if (!auth) return false;
  const same = (ref: { name: string; namespace?: string }) =>
    ref.name === trust.name && (ref.namespace ?? cluster.metadata.namespace) === trust.namespace;
  if (trust.kind === KINDS.NatsOperatorTrust.kind) return same(auth.trustRef);
  return (auth.accountTrustRefs ?? []).some(same);
}

/** Whether a leaf remote of the cluster dials the NatsConnection (pure). */
export function namesConnection(cluster: Cluster, connection: ObjectRef): boolean {
  return (cluster.spec.leafRemotes ?? []).some(
    (r) =>
      r.connectionRef.name === connection.name &&
      (r.connectionRef.namespace ?? cluster.metadata.namespace) === connection.namespace,
  );
}

/** Whether the cluster refers into the grant's namespace from its own, which only a grant admits (pure). */
export function reliesOnGrant(cluster: Cluster, grant: ObjectRef): boolean {
  if (cluster.metadata.namespace === grant.namespace) return false;
  const auth = cluster.spec.auth;
  const refs = [
    ...(cluster.spec.leafRemotes ?? []).map((r) => r.connectionRef),
    ...(auth ? [auth.trustRef, ...(auth.accountTrustRefs ?? [])] : []),
  ];
  return refs.some((ref) => ref.namespace === grant.namespace);
}

/** Names of the Secrets a spec refers to (`secretRef` and `secretKeyRef` anywhere in it). */
function secretNames(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) secretNames(item, into);
  else if (value !== null && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) {
      const name = (child as { name?: unknown } | null)?.name;
      if ((key === "secretRef" || key === "secretKeyRef") && typeof name === "string") into.add(name);
      else secretNames(child, into);
    }
  }
  return into;
}

/**
 * Whether the cluster's spec names the Secret, or cert-manager issues it for one of its listeners;
 * Secret references are always in its own namespace (pure).
 */
export function namesSecret(cluster: Cluster, secret: ObjectRef): boolean {
  if (cluster.metadata.namespace !== secret.namespace) return false;
  return (
    secretNames(cluster.spec).has(secret.name) ||
    planCertificates(cluster).wanted.some((c) => c.object.spec.secretName === secret.name)
  );
}

/** Whether the cluster's rendered config is made of the input `ref` names (pure). */
export function usesInput(cluster: Cluster, ref: ObjectRef): boolean {
  switch (ref.kind) {
    case "Secret":
      return namesSecret(cluster, ref);
    case KINDS.NatsConnection.kind:
      return namesConnection(cluster, ref);
    case KINDS.NatsReferenceGrant.kind:
      return reliesOnGrant(cluster, ref);
    default:
      return namesTrust(cluster, ref);
  }
}

/** The NatsConnections of the Secret's namespace whose spec names it (a leaf remote's creds or CA). */
async function connectionsNaming(kube: Kube, secret: ObjectRef): Promise<ObjectRef[]> {
  const connections = await kube.list({
    apiVersion: KINDS.NatsConnection.apiVersion,
    kind: KINDS.NatsConnection.kind,
    namespace: secret.namespace,
  });
  return connections
    .filter((c) => secretNames((c as { spec?: unknown }).spec).has(secret.name))
    .map((c) => ({
      ...secret,
      apiVersion: KINDS.NatsConnection.apiVersion,
      kind: KINDS.NatsConnection.kind,
      name: c.metadata.name,
    }));
}

/**
 * Every NatsCluster that uses the input: in any namespace (a grant can admit it from anywhere), or
 * for a Secret, those of its namespace that name it and, through a NatsConnection that names it,
 * those whose leaf remotes dial that connection from anywhere.
 */
export async function clustersUsing(kube: Kube, input: ObjectRef): Promise<Cluster[]> {
  const list = async (namespace?: string) =>
    (await kube.list({ apiVersion: CLUSTER_API_VERSION, kind: CLUSTER_KIND, ...(namespace ? { namespace } : {}) }))
      .map(asCluster)
      .filter((c): c is Cluster => c !== undefined && !c.metadata.deletionTimestamp);
  if (input.kind !== "Secret") return (await list()).filter((c) => usesInput(c, input));
  const [local, connections] = await Promise.all([list(input.namespace), connectionsNaming(kube, input)]);
  const naming = local.filter((c) => namesSecret(c, input));
  if (connections.length === 0) return naming;
  const dialling = (await list()).filter((c) => connections.some((connection) => namesConnection(c, connection)));
  const uids = new Set(naming.map((c) => c.metadata.uid));
  return [...naming, ...dialling.filter((c) => !uids.has(c.metadata.uid))];
}

/**
 * What an input's change leads to: every NatsCluster using it is rendered again (the runtime fans
 * out to them); the reconciler also pokes step-rollout for each, since at rest it has no tick that
 * would notice the new revision (C31 rolls it out).
 */
export const fromInputs: readonly Related[] = INPUTS.map((kind) => ({
  kind,
  map: async (ref: ObjectRef, { kube }: RelatedContext) =>
    (await clustersUsing(kube, ref)).map((c) => ({
      ...CLUSTER_REF,
      namespace: c.metadata.namespace,
      name: c.metadata.name,
    })),
}));
