// Follows a NatsCluster's `spec.auth.trustRef` to the NatsOperatorTrust it names. Both cluster
// functions plan from the result, so they must read it the same way: this is the one place.
import { KINDS, type NatsOperatorTrustSpec, type NatsOperatorTrustStatus } from "../../../shared/api/index.ts";
import { isAdmitted, type Kube, type KubeObject } from "../../../shared/kube/index.ts";
import { resolveAccountTrusts } from "./account-trust.ts";
import type { Cluster } from "../cluster.ts";
import { refuse, validateTrust, type TrustResolution } from "./trust-validation.ts";

export type OperatorTrustObject = KubeObject & { spec?: NatsOperatorTrustSpec; status?: NatsOperatorTrustStatus };

/** Where the trustRef points: its namespace defaults to the NatsCluster's. */
export function trustKey(cluster: Cluster): { namespace: string; name: string } | undefined {
  const ref = cluster.spec.auth?.trustRef;
  if (!ref) return undefined;
  return { namespace: ref.namespace ?? cluster.metadata.namespace, name: ref.name };
}

/**
 * Which JWTs a NatsOperatorTrust offers (pure): the literal ones in its spec, or, in the
 * reference form, the ones the auth controller mirrored into its status (absent until then).
 */
export function judgeTrustObject(
  namespace: string,
  name: string,
  trust: OperatorTrustObject | undefined,
): TrustResolution {
  const source = `NatsOperatorTrust ${namespace}/${name}`;
  if (!trust) return refuse("TrustNotFound", `${source} does not exist`);
  const spec = trust.spec ?? {};
  if (spec.operatorJWT !== undefined || spec.systemAccountJWT !== undefined) {
    if (!spec.operatorJWT || !spec.systemAccountJWT)
      return refuse("TrustInvalid", `${source} sets only one of operatorJWT and systemAccountJWT`);
    return validateTrust(source, spec.operatorJWT, spec.systemAccountJWT);
  }
  const status = trust.status ?? {};
  if (!status.operatorJWT || !status.systemAccountJWT)
    return refuse("TrustNotReady", `${source} has not mirrored the operator's JWTs yet`);
  return validateTrust(source, status.operatorJWT, status.systemAccountJWT);
}

/**
 * The trust a NatsCluster with `spec.auth` renders from, with the accounts its
 * `accountTrustRefs` preload. Another namespace is followed only while a NatsReferenceGrant
 * there admits this NatsCluster, checked before the read so a missing grant does not tell
 * whether the trust exists. Undefined without `spec.auth`.
 */
export async function resolveTrust(kube: Kube, cluster: Cluster): Promise<TrustResolution | undefined> {
  const key = trustKey(cluster);
  if (!key) return undefined;
  const admitted = await isAdmitted(
    kube,
    { group: KINDS.NatsCluster.group, kind: KINDS.NatsCluster.kind, namespace: cluster.metadata.namespace },
    { group: KINDS.NatsOperatorTrust.group, kind: KINDS.NatsOperatorTrust.kind, ...key },
  );
  if (!admitted) {
    return refuse(
      "NoGrant",
      `no NatsReferenceGrant in namespace ${key.namespace} admits NatsCluster ${cluster.metadata.namespace}/${cluster.metadata.name} to NatsOperatorTrust ${key.name}`,
    );
  }
  const trust = await kube.get<OperatorTrustObject>({
    apiVersion: KINDS.NatsOperatorTrust.apiVersion,
    kind: KINDS.NatsOperatorTrust.kind,
    ...key,
  });
  const judged = judgeTrustObject(key.namespace, key.name, trust);
  if (judged.kind === "refused" || (cluster.spec.auth?.accountTrustRefs ?? []).length === 0) return judged;
  const accounts = await resolveAccountTrusts(
    kube,
    cluster,
    { publicKey: judged.systemAccount, jwt: judged.systemAccountJWT },
    judged.signers,
  );
  return accounts.kind === "refused" ? accounts : { ...judged, accounts: accounts.accounts };
}
