// The leafnodes block of a server's config (C51–C53): the listener leaf nodes connect to
// (`spec.leafnodes`) and the hubs this cluster dials as a leaf (`spec.leafRemotes`).
import type { Cluster as NatsCluster } from "../cluster.ts";
import { PORTS } from "../names.ts";
import { POD_PATHS } from "./paths.ts";

/** A leaf remote whose NatsConnection was read and admitted: what its config entry is made of. */
export interface ReadyLeafRemote {
  connectionNamespace: string;
  connectionName: string;
  /** The hub's leafnode URLs (the NatsConnection's `servers`). */
  urls: string[];
  /** Contents of the creds file, when the connection names credentials. */
  creds?: string;
  /** PEM CA bundle verifying the hub, when the connection names one. */
  ca?: string;
  /** Public key of the local account the remote binds; absent: the global account. */
  account?: string;
  /** The JWT of `account` when it comes from a NatsAccountTrust: preloaded beside the others. */
  accountJwt?: string;
}

/** The Secret holding the listener's certificate: the named one, or `<name>-leafnodes-tls`. */
export function leafnodesTlsSecretName(cluster: NatsCluster): string | undefined {
  const tls = cluster.spec.leafnodes?.tls;
  if (!tls) return undefined;
  return tls.secretRef?.name ?? `${cluster.metadata.name}-leafnodes-tls`;
}

/** `<namespace>_<name>`: a remote's files in the config volume, unique per NatsConnection. */
export const remoteFileBase = (remote: Pick<ReadyLeafRemote, "connectionNamespace" | "connectionName">): string =>
  `${remote.connectionNamespace}_${remote.connectionName}`;

export const remoteCredsKey = (remote: ReadyLeafRemote): string => `${remoteFileBase(remote)}.creds`;
export const remoteCaKey = (remote: ReadyLeafRemote): string => `${remoteFileBase(remote)}.ca.crt`;

/**
 * The `leafnodes` block, or undefined when the cluster neither listens for leaf nodes nor dials
 * a hub. Remotes read their creds and CA from the files projected beside `nats.conf`.
 */
export function renderLeafnodes(
  cluster: NatsCluster,
  remotes: readonly ReadyLeafRemote[],
): Record<string, unknown> | undefined {
  const listener = cluster.spec.leafnodes;
  if (!listener && remotes.length === 0) return undefined;
  const block: Record<string, unknown> = {};
  if (listener) {
    block["listen"] = `0.0.0.0:${PORTS.leafnodes}`;
    if (listener.advertise) block["advertise"] = listener.advertise;
    // Leaf nodes authenticate with their creds, not certificates: the listener asks none of them.
    if (listener.tls) {
      block["tls"] = {
        cert_file: `${POD_PATHS.leafnodesTlsDir}/tls.crt`,
        key_file: `${POD_PATHS.leafnodesTlsDir}/tls.key`,
      };
    }
  }
  if (remotes.length > 0) {
    block["remotes"] = remotes.map((remote) => {
      const entry: Record<string, unknown> = { urls: remote.urls };
      if (remote.creds !== undefined) entry["credentials"] = `${POD_PATHS.configDir}/${remoteCredsKey(remote)}`;
      if (remote.account) entry["account"] = remote.account;
      if (remote.ca !== undefined) entry["tls"] = { ca_file: `${POD_PATHS.configDir}/${remoteCaKey(remote)}` };
      return entry;
    });
  }
  return block;
}

/** The data of Secret `<name>-leaf-remotes` (base64 values): every remote's creds and CA. */
export function leafRemotesSecretData(remotes: readonly ReadyLeafRemote[]): Record<string, string> {
  const data: Record<string, string> = {};
  const encode = (text: string) => Buffer.from(text, "utf8").toString("base64");
  for (const remote of remotes) {
    if (remote.creds !== undefined) data[remoteCredsKey(remote)] = encode(remote.creds);
    if (remote.ca !== undefined) data[remoteCaKey(remote)] = encode(remote.ca);
  }
  return data;
}
