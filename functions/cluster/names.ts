// Names, labels and addresses of everything rendered for a NatsCluster, in one place
// so the renderer and the rollout agree on them.
import { APP_NAME, LABELS, MANAGED_BY } from "../../shared/api/index.ts";

export const PORTS = {
  client: 4222,
  route: 6222,
  monitor: 8222,
  gateway: 7222,
  leafnodes: 7422,
  metrics: 7777,
} as const;

export const CLUSTER_API_VERSION = "cluster.nats-operator.io/v1beta1";
export const CLUSTER_KIND = "NatsCluster";

export const serverName = (cluster: string, ordinal: number): string => `${cluster}-${ordinal}`;
export const podName = (server: string): string => `${server}-0`;
export const configMapName = (server: string): string => `${server}-config`;
export const claimName = (server: string): string => `data-${podName(server)}`;
export const headlessServiceName = (cluster: string): string => `${cluster}-headless`;
export const routesTlsSecretName = (cluster: string): string => `${cluster}-routes-tls`;
export const routesCaSecretName = (cluster: string): string => `${cluster}-routes-ca`;
export const scheduleName = (cluster: string): string => `${cluster}-rollout`;
export const gatewayServiceName = (cluster: string): string => `${cluster}-gateway`;
export const leafnodesServiceName = (cluster: string): string => `${cluster}-leafnodes`;
/** Where the remotes' creds and CAs are copied, beside the config file. */
export const leafRemotesSecretName = (cluster: string): string => `${cluster}-leaf-remotes`;

/** The ordinal of a server name of this cluster, or undefined when it is not one. */
export function ordinalOf(cluster: string, server: string): number | undefined {
  if (!server.startsWith(`${cluster}-`)) return undefined;
  const rest = server.slice(cluster.length + 1);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
}

/** Pod DNS name inside the cluster (what routes dial). */
export const podHost = (cluster: string, namespace: string, server: string): string =>
  `${podName(server)}.${headlessServiceName(cluster)}.${namespace}.svc`;

/** Monitoring base URL of one server, addressed by its fully qualified pod name. */
export const monitorUrl = (cluster: string, namespace: string, server: string): string =>
  `http://${podHost(cluster, namespace, server)}.cluster.local:${PORTS.monitor}`;

export function clusterLabels(cluster: string): Record<string, string> {
  return {
    [LABELS.appName]: APP_NAME,
    [LABELS.appInstance]: cluster,
    [LABELS.appManagedBy]: MANAGED_BY,
    [LABELS.cluster]: cluster,
  };
}

export function serverLabels(cluster: string, server: string): Record<string, string> {
  return { ...clusterLabels(cluster), [LABELS.server]: server };
}

/** The selector of one server's pod: cluster and server labels only. */
export function serverSelector(cluster: string, server: string): Record<string, string> {
  return { [LABELS.cluster]: cluster, [LABELS.server]: server };
}

export function clusterSelector(cluster: string): Record<string, string> {
  return { [LABELS.cluster]: cluster };
}
