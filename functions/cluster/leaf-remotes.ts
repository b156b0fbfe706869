// The hubs a leaf NatsCluster dials (C52–C54): each `leafRemotes[]` entry names a NatsConnection
// (in another namespace only while a NatsReferenceGrant there admits this NatsCluster) whose
// servers, creds and CA make the remote, bound to the global account, the cluster's system
// account, or the account of a NatsAccountTrust, whose JWT is preloaded. A remote that cannot be read is left out and named;
// the others are rendered.
import { KINDS, type NatsConnectionSpec } from "../../shared/api/index.ts";
import { isAdmitted, type Kube, type KubeObject } from "../../shared/kube/index.ts";
import { readConnectionSettings } from "../../shared/nats/index.ts";
import type { Cluster } from "./cluster.ts";
import type { ReadyLeafRemote } from "./plan/leafnodes.ts";
import { type AccountTrustObject, judgeAccountTrust } from "./trust/account-trust.ts";
import type { ReadyTrust } from "./trust/trust-validation.ts";

export interface RefusedLeafRemote {
  connectionNamespace: string;
  connectionName: string;
  reason: "LeafRemoteNotFound" | "LeafRemoteNotReady" | "LeafRemoteInvalid" | "NoGrant";
  message: string;
}

export interface LeafRemotes {
  ready: ReadyLeafRemote[];
  refused: RefusedLeafRemote[];
}

type ConnectionObject = KubeObject & { spec?: NatsConnectionSpec };
type LeafRemote = NonNullable<Cluster["spec"]["leafRemotes"]>[number];

const TRUST_REASONS = {
  AccountTrustNotFound: "LeafRemoteNotFound",
  AccountTrustNotReady: "LeafRemoteNotReady",
  NoGrant: "NoGrant",
} as const;

/**
 * The local account a remote binds by `localAccountTrustRef`: the NatsAccountTrust's key, and
 * its JWT to preload, judged as `auth.accountTrustRefs` are (C44). One account given another
 * JWT by the trusts the cluster already preloads is refused: servers could not know which to serve.
 */
async function localAccount(
  kube: Kube,
  cluster: Cluster,
  ref: { name: string; namespace?: string },
  trust: ReadyTrust | undefined,
): Promise<
  | { kind: "ready"; publicKey: string; jwt: string }
  | { kind: "refused"; reason: RefusedLeafRemote["reason"]; message: string }
> {
  const namespace = ref.namespace ?? cluster.metadata.namespace;
  const source = `NatsAccountTrust ${namespace}/${ref.name}`;
  if (!trust) return { kind: "refused", reason: "LeafRemoteInvalid", message: "localAccountTrustRef needs spec.auth" };
  const admitted = await isAdmitted(
    kube,
    { group: KINDS.NatsCluster.group, kind: KINDS.NatsCluster.kind, namespace: cluster.metadata.namespace },
    { group: KINDS.NatsAccountTrust.group, kind: KINDS.NatsAccountTrust.kind, namespace, name: ref.name },
  );
  if (!admitted)
    return {
      kind: "refused",
      reason: "NoGrant",
      message: `no NatsReferenceGrant in namespace ${namespace} admits ${source}`,
    };
  const object = await kube.get<AccountTrustObject>({
    apiVersion: KINDS.NatsAccountTrust.apiVersion,
    kind: KINDS.NatsAccountTrust.kind,
    namespace,
    name: ref.name,
  });
  const judged = judgeAccountTrust(namespace, ref.name, object, trust.signers);
  if (judged.kind === "refused") {
    const reason = (TRUST_REASONS as Record<string, RefusedLeafRemote["reason"]>)[judged.reason] ?? "LeafRemoteInvalid";
    return { kind: "refused", reason, message: judged.message };
  }
  const preloaded = { [trust.systemAccount]: trust.systemAccountJWT, ...(trust.accounts ?? {}) };
  const kept = preloaded[judged.publicKey];
  if (kept !== undefined && kept !== judged.jwt)
    return {
      kind: "refused",
      reason: "LeafRemoteInvalid",
      message: `${source} gives account ${judged.publicKey} another JWT than the one already preloaded`,
    };
  return { kind: "ready", publicKey: judged.publicKey, jwt: judged.jwt };
}

async function resolveOne(
  kube: Kube,
  cluster: Cluster,
  remote: LeafRemote,
  trust: ReadyTrust | undefined,
): Promise<ReadyLeafRemote | RefusedLeafRemote> {
  const connectionNamespace = remote.connectionRef.namespace ?? cluster.metadata.namespace;
  const connectionName = remote.connectionRef.name;
  const id = { connectionNamespace, connectionName };
  const source = `NatsConnection ${connectionNamespace}/${connectionName}`;
  const refuse = (reason: RefusedLeafRemote["reason"], message: string): RefusedLeafRemote => ({
    ...id,
    reason,
    message,
  });
  const admitted = await isAdmitted(
    kube,
    { group: KINDS.NatsCluster.group, kind: KINDS.NatsCluster.kind, namespace: cluster.metadata.namespace },
    {
      group: KINDS.NatsConnection.group,
      kind: KINDS.NatsConnection.kind,
      namespace: connectionNamespace,
      name: connectionName,
    },
  );
  if (!admitted)
    return refuse(
      "NoGrant",
      `no NatsReferenceGrant in namespace ${connectionNamespace} admits this NatsCluster to ${source}`,
    );
  const connection = await kube.get<ConnectionObject>({
    apiVersion: KINDS.NatsConnection.apiVersion,
    kind: KINDS.NatsConnection.kind,
    namespace: connectionNamespace,
    name: connectionName,
  });
  if (!connection?.spec) return refuse("LeafRemoteNotFound", `${source} does not exist`);
  let account: string | undefined;
  let accountJwt: string | undefined;
  if (remote.localSystemAccount) {
    if (!trust) return refuse("LeafRemoteInvalid", `${source}: localSystemAccount needs spec.auth`);
    account = trust.systemAccount;
  } else if (remote.localAccountTrustRef) {
    const local = await localAccount(kube, cluster, remote.localAccountTrustRef, trust);
    if (local.kind === "refused") return refuse(local.reason, `${source}: ${local.message}`);
    account = local.publicKey;
    accountJwt = local.jwt;
  }
  const settings = await readConnectionSettings(kube, connectionNamespace, connection.spec);
  if (!settings.ok)
    return refuse(
      settings.reason === "SecretNotFound" ? "LeafRemoteNotReady" : "LeafRemoteInvalid",
      `${source}: ${settings.message}`,
    );
  return {
    ...id,
    urls: settings.settings.servers,
    ...(settings.settings.creds !== undefined ? { creds: settings.settings.creds } : {}),
    ...(settings.settings.ca !== undefined ? { ca: settings.settings.ca } : {}),
    ...(account ? { account } : {}),
    ...(accountJwt ? { accountJwt } : {}),
  };
}

/** Reads every leaf remote; one named twice is refused the second time (its files would collide). */
export async function resolveLeafRemotes(
  kube: Kube,
  cluster: Cluster,
  trust: ReadyTrust | undefined,
): Promise<LeafRemotes> {
  const remotes = cluster.spec.leafRemotes ?? [];
  const results = await Promise.all(remotes.map((remote) => resolveOne(kube, cluster, remote, trust)));
  const seen = new Set<string>();
  const out: LeafRemotes = { ready: [], refused: [] };
  for (const result of results) {
    const key = `${result.connectionNamespace}/${result.connectionName}`;
    if (seen.has(key)) {
      out.refused.push({
        connectionNamespace: result.connectionNamespace,
        connectionName: result.connectionName,
        reason: "LeafRemoteInvalid",
        message: `NatsConnection ${key} is named by two leaf remotes; the second is left out`,
      });
      continue;
    }
    seen.add(key);
    if ("reason" in result) out.refused.push(result);
    else out.ready.push(result);
  }
  return out;
}
