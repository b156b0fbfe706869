// `spec.auth.accountTrustRefs` (C44): accounts every server preloads beside the system account,
// each from a NatsAccountTrust. Judged like the operator trust: a JWT must be an account's,
// for the key the trust names, issued by the operator or one of its signing keys.
import { isAccount } from "@nats-io/jwt";
import { KINDS, type NatsAccountTrustSpec, type NatsAccountTrustStatus } from "../../../shared/api/index.ts";
import { isAdmitted, type Kube, type KubeObject } from "../../../shared/kube/index.ts";
import type { Cluster } from "../cluster.ts";
import { decodeClaims } from "./jwt-claims.ts";
import { refuse, type RefusedTrust } from "./trust-validation.ts";

export type AccountTrustObject = KubeObject & { spec?: NatsAccountTrustSpec; status?: NatsAccountTrustStatus };

export interface PreloadedAccount {
  kind: "ready";
  publicKey: string;
  jwt: string;
}

/** The account JWT a NatsAccountTrust carries, judged against the operator's signers (pure). */
export function judgeAccountTrust(
  namespace: string,
  name: string,
  trust: AccountTrustObject | undefined,
  signers: readonly string[],
): PreloadedAccount | RefusedTrust {
  const source = `NatsAccountTrust ${namespace}/${name}`;
  if (!trust) return refuse("AccountTrustNotFound", `${source} does not exist`);
  const spec = trust.spec ?? {};
  const literal = spec.publicKey !== undefined;
  const publicKey = literal ? spec.publicKey : trust.status?.publicKey;
  const jwt = literal ? spec.jwt : trust.status?.jwt;
  // A literal trust without a JWT never gets one; a mirrored one gets it from the auth controller.
  if (!jwt)
    return literal
      ? refuse("AccountTrustInvalid", `${source} carries no account JWT to preload`)
      : refuse("AccountTrustNotReady", `${source} has not mirrored the account's JWT yet`);
  const decoded = decodeClaims(jwt);
  if (!decoded.claims)
    return refuse(
      "AccountTrustInvalid",
      `${source}: the account JWT does not decode: ${decoded.error ?? "unknown error"}`,
    );
  const claims = decoded.claims;
  if (!isAccount(claims) || !claims.sub.startsWith("A"))
    return refuse("AccountTrustInvalid", `${source}: the JWT is not an account JWT`);
  if (publicKey && publicKey !== claims.sub)
    return refuse("AccountTrustInvalid", `${source}: the JWT is for ${claims.sub}, not ${publicKey}`);
  if (!signers.includes(claims.iss))
    return refuse(
      "AccountTrustInvalid",
      `${source}: the account JWT is issued by ${claims.iss}, which is neither the operator nor one of its signing keys`,
    );
  return { kind: "ready", publicKey: claims.sub, jwt: jwt.trim() };
}

/**
 * The preload map (pure): the system account and every account, each once. An account named
 * twice with the same JWT is preloaded once; with different JWTs, the servers could not know
 * which to serve, so it is refused.
 */
export function mergePreloads(
  system: { publicKey: string; jwt: string },
  accounts: readonly PreloadedAccount[],
): { kind: "ready"; preload: Record<string, string> } | RefusedTrust {
  const preload: Record<string, string> = { [system.publicKey]: system.jwt };
  for (const account of accounts) {
    const kept = preload[account.publicKey];
    if (kept !== undefined && kept !== account.jwt) {
      const what = account.publicKey === system.publicKey ? "the system account" : `account ${account.publicKey}`;
      return refuse("AccountTrustInvalid", `two different JWTs are given for ${what}`);
    }
    preload[account.publicKey] = account.jwt;
  }
  return { kind: "ready", preload };
}

/**
 * The accounts `auth.accountTrustRefs` preloads, beside the system account's key (which is not
 * repeated). Another namespace is followed only while a NatsReferenceGrant there admits it.
 */
export async function resolveAccountTrusts(
  kube: Kube,
  cluster: Cluster,
  system: { publicKey: string; jwt: string },
  signers: readonly string[],
): Promise<{ kind: "ready"; accounts: Record<string, string> } | RefusedTrust> {
  const refs = cluster.spec.auth?.accountTrustRefs ?? [];
  const judged = await Promise.all(
    refs.map(async (ref): Promise<PreloadedAccount | RefusedTrust> => {
      const key = { namespace: ref.namespace ?? cluster.metadata.namespace, name: ref.name };
      const from = {
        group: KINDS.NatsCluster.group,
        kind: KINDS.NatsCluster.kind,
        namespace: cluster.metadata.namespace,
      };
      if (
        !(await isAdmitted(kube, from, {
          group: KINDS.NatsAccountTrust.group,
          kind: KINDS.NatsAccountTrust.kind,
          ...key,
        }))
      ) {
        return refuse(
          "NoGrant",
          `no NatsReferenceGrant in namespace ${key.namespace} admits NatsCluster ${cluster.metadata.namespace}/${cluster.metadata.name} to NatsAccountTrust ${key.name}`,
        );
      }
      const trust = await kube.get<AccountTrustObject>({
        apiVersion: KINDS.NatsAccountTrust.apiVersion,
        kind: KINDS.NatsAccountTrust.kind,
        ...key,
      });
      return judgeAccountTrust(key.namespace, key.name, trust, signers);
    }),
  );
  const refused = judged.find((j): j is RefusedTrust => j.kind === "refused");
  if (refused) return refused;
  const merged = mergePreloads(
    system,
    judged.filter((j): j is PreloadedAccount => j.kind === "ready"),
  );
  if (merged.kind === "refused") return merged;
  return {
    kind: "ready",
    accounts: Object.fromEntries(Object.entries(merged.preload).filter(([key]) => key !== system.publicKey)),
  };
}
