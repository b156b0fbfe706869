// Operator mode: what a NatsCluster with `spec.auth` adds to every server's config, from the
// trust its trustRef resolved to. The keys are the same on every server.
import type { Cluster as NatsCluster } from "../cluster.ts";
import type { ReadyTrust } from "../trust/trust-validation.ts";
import { POD_PATHS } from "./paths.ts";

export type ResolverType = "Full" | "Cache";

export interface AuthConfig {
  /** The operator JWT, inline: nats-server reads a value starting `eyJ` as the JWT itself. */
  operatorJWT: string;
  systemAccount: string;
  resolver: ResolverType;
  /** Account public key → account JWT, the system account's always among them. */
  preload: Record<string, string>;
}

/**
 * Full unless the spec says otherwise, except on a leaf that preloads no account: a leaf's
 * accounts live on its hub, and a Cache resolver fetches them from there on demand.
 */
export function chooseResolver(cluster: NatsCluster): ResolverType {
  const auth = cluster.spec.auth;
  if (auth?.resolver) return auth.resolver;
  const remotes = cluster.spec.leafRemotes ?? [];
  const preloadsAccount =
    (auth?.accountTrustRefs?.length ?? 0) > 0 || remotes.some((r) => r.localAccountTrustRef !== undefined);
  return remotes.length > 0 && !preloadsAccount ? "Cache" : "Full";
}

export function authConfig(cluster: NatsCluster, trust: ReadyTrust): AuthConfig {
  return {
    operatorJWT: trust.operatorJWT,
    systemAccount: trust.systemAccount,
    resolver: chooseResolver(cluster),
    // The system account is preloaded so a server can boot, and serve $SYS, before any peer
    // (or gateway) is there to sync accounts from; then the accountTrustRefs accounts.
    preload: { [trust.systemAccount]: trust.systemAccountJWT, ...(trust.accounts ?? {}) },
  };
}

/** The config keys, in the order they are written after everything else. */
export function renderAuthKeys(auth: AuthConfig): Record<string, unknown> {
  const dir = POD_PATHS.resolverDir;
  return {
    operator: auth.operatorJWT,
    system_account: auth.systemAccount,
    // allow_delete lets the operator's tooling remove an account with a signed delete request.
    resolver: auth.resolver === "Full" ? { type: "full", dir, allow_delete: true } : { type: "cache", dir },
    resolver_preload: auth.preload,
  };
}
