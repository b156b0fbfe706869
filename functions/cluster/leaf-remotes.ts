// The hubs a leaf NatsCluster dials (C52–C54): each `leafRemotes[]` entry names a NatsConnection
// (in another namespace only while a NatsReferenceGrant there admits this NatsCluster) whose
// servers, creds and CA make the remote. A remote that cannot be read is left out and named;
// the others are rendered.
import type { NatsConnectionSpec } from "../../shared/api/core/nats-connection.ts";
import { KINDS } from "../../shared/api/kinds.ts";
import type { Kube } from "../../shared/kube/client.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import { isAdmitted } from "../../shared/kube/reference-grants.ts";
import { readConnectionSettings } from "../../shared/nats/connection-settings.ts";
import type { Cluster } from "./cluster.ts";
import type { ReadyLeafRemote } from "./plan/leafnodes.ts";
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
  if (remote.localSystemAccount) {
    if (!trust) return refuse("LeafRemoteInvalid", `${source}: localSystemAccount needs spec.auth`);
    account = trust.systemAccount;
  } else if (remote.localAccountTrustRef) {
    return refuse("LeafRemoteInvalid", `${source}: localAccountTrustRef is not supported yet`);
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
