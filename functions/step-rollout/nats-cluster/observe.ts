// Everything one rollout decision needs, read and nothing else: the planned render, the servers'
// StatefulSets, ConfigMaps and pods (and, for a server without its pod, why its StatefulSet could
// not create it), objects of rendered names held by others, what every server's monitoring port
// answers, and the system user. What it all means is derived in decide.ts.
import { LABELS } from "../../../shared/api/index.ts";
import { describeObject, isControlledBy, keyOf, type Kube, type KubeObject } from "../../../shared/kube/index.ts";
import {
  allowGatewayWithoutTls,
  claimName,
  type Cluster,
  configMapName,
  ordinalOf,
  planOf,
  podName,
  readPlanInputs,
  type ServerConnectivity,
} from "../../cluster/index.ts";
import { pingConnectivity, readConnectivity } from "../servers/connectivity.ts";
import { askMetaLeader, remoteMetaLeader } from "../servers/meta-leader.ts";
import { readServers, type MonitorAddress } from "../servers/monitor.ts";
import { readSystemUser, systemConnection } from "../servers/system-user.ts";
import type { SystemUser } from "../servers/types.ts";
import type { ServerReport } from "../rollout/snapshot.ts";
import { readFailedCreate } from "./failed-create.ts";
import type { ConfigMap, FailedCreate, Observed, Pod, StatefulSet } from "./types.ts";

/** The servers' gateway and leaf connections, when the cluster has either. */
async function observeConnectivity(
  cluster: Cluster,
  servers: readonly string[],
  systemUser: SystemUser,
  address: MonitorAddress | undefined,
): Promise<ServerConnectivity[] | undefined> {
  const what = { gateways: cluster.spec.gateway !== undefined, leafs: (cluster.spec.leafRemotes ?? []).length > 0 };
  if (!what.gateways && !what.leafs) return undefined;
  if (systemUser.kind === "ready") {
    try {
      return await pingConnectivity(await systemConnection(cluster, systemUser), cluster, servers, what);
    } catch {
      // The system user cannot reach the servers now: their monitoring ports may still answer.
    }
  }
  return readConnectivity(cluster, servers, what, address);
}

/** The meta leader's own report, when it leads from another NATS cluster and answers the system user. */
async function observeRemoteMetaLeader(
  cluster: Cluster,
  reports: readonly ServerReport[],
  servers: ReadonlyMap<string, unknown>,
  systemUser: SystemUser,
): Promise<ServerReport | undefined> {
  const leader = remoteMetaLeader(reports, new Set(servers.keys()));
  if (leader === undefined || systemUser.kind !== "ready") return undefined;
  try {
    return await askMetaLeader(await systemConnection(cluster, systemUser), leader);
  } catch {
    // Not reached as the system user now: the followers' view stands.
    return undefined;
  }
}

/**
 * Reads everything one decision needs. The plan is render-cluster's, made by the cluster package
 * from the same inputs read the same way (readPlanInputs, planOf at `now`), so neither moves
 * servers the other holds back. While the trust is refused there is no render to move to: the
 * plan (without auth) then serves only for names, and `hold` says why.
 */
export async function observeCluster(
  kube: Kube,
  cluster: Cluster,
  address: MonitorAddress | undefined,
  now: Date,
): Promise<Observed> {
  const name = cluster.metadata.name;
  const namespace = cluster.metadata.namespace;
  const inputs = await readPlanInputs(kube, cluster);
  const { plan, certificatesReady, certificateWait, hold } = planOf(inputs, now, {
    allowGatewayWithoutTls: allowGatewayWithoutTls(),
  });
  const leafRemotes = inputs.leafRemotes;
  const labelSelector = `${LABELS.cluster}=${name}`;
  const [stsList, cmList, podList, systemUser] = await Promise.all([
    kube.list<StatefulSet>({ apiVersion: "apps/v1", kind: "StatefulSet", namespace, labelSelector }),
    kube.list<ConfigMap>({ apiVersion: "v1", kind: "ConfigMap", namespace, labelSelector }),
    kube.list<Pod>({ apiVersion: "v1", kind: "Pod", namespace, labelSelector }),
    readSystemUser(kube, cluster, plan),
  ]);
  const statefulSets = new Map(
    stsList
      .filter((s) => isControlledBy(s, cluster) && ordinalOf(name, s.metadata.name) !== undefined)
      .map((s) => [s.metadata.name, s]),
  );
  const configMaps = new Map(cmList.filter((c) => isControlledBy(c, cluster)).map((c) => [c.metadata.name, c]));
  const pods = new Map(
    [...statefulSets.keys()].flatMap((server): [string, Pod][] => {
      const pod = podList.find((p) => p.metadata.name === podName(server));
      return pod ? [[server, pod]] : [];
    }),
  );

  // Objects of rendered names that we do not control.
  const candidates: KubeObject[] = [...plan.shared];
  for (const server of plan.servers) {
    if (!statefulSets.has(server.name)) candidates.push(server.statefulSet);
    if (!configMaps.has(server.configMap.metadata.name)) candidates.push(server.configMap);
  }
  // A server without its pod: why the StatefulSet controller could not create it, when it says.
  const podless = [...statefulSets.values()].filter((s) => !pods.has(s.metadata.name));
  // The claims of servers being deleted: a delivery lost after the StatefulSet's delete leaves one.
  const deleting = (cluster.status?.removals ?? []).filter((r) => r.phase === "Deleting").map((r) => r.name);
  const get = (kind: string, name: string) => kube.get<KubeObject>({ apiVersion: "v1", kind, namespace, name });
  const recorded = cluster.status?.leftovers ?? [];
  const [found, failed, reports, connectivity, claims, deletingConfigMaps, leftovers] = await Promise.all([
    Promise.all(candidates.map((c) => kube.get<KubeObject>(keyOf(c)))),
    Promise.all(podless.map(async (s) => [s.metadata.name, await readFailedCreate(kube, s)] as const)),
    readServers(name, namespace, [...statefulSets.keys()], cluster.spec.jetstream !== undefined, address),
    observeConnectivity(cluster, [...statefulSets.keys()], systemUser, address),
    Promise.all(
      deleting.map(async (server) => [server, await get("PersistentVolumeClaim", claimName(server))] as const),
    ),
    // What a removal may leave: the ConfigMap of a server being deleted, whoever controls it (H10).
    Promise.all(deleting.map(async (server) => [server, await get("ConfigMap", configMapName(server))] as const)),
    // What removals left before, and whether it is still there.
    Promise.all(recorded.map(async (l) => [`${l.kind}/${l.name}`, await get(l.kind, l.name)] as const)),
  ]);
  const present = <K>(pairs: readonly (readonly [K, KubeObject | undefined])[]) =>
    new Map(pairs.flatMap(([key, object]): [K, KubeObject][] => (object ? [[key, object]] : [])));
  const metaLeader = cluster.spec.jetstream
    ? await observeRemoteMetaLeader(cluster, reports, statefulSets, systemUser)
    : undefined;
  const foreign = found
    .filter((o): o is KubeObject => o !== undefined && !isControlledBy(o, cluster))
    .map(describeObject);
  const failedCreates = new Map(
    failed.flatMap(([server, event]): [string, FailedCreate][] => (event ? [[server, event]] : [])),
  );

  return {
    cluster,
    plan,
    certificatesReady,
    ...(certificateWait ? { certificateWait } : {}),
    ...(hold ? { hold } : {}),
    leafRemotes,
    ...(connectivity ? { connectivity } : {}),
    statefulSets,
    configMaps,
    foreign,
    pods,
    failedCreates,
    reports,
    ...(metaLeader ? { metaLeader } : {}),
    systemUser,
    claims: present(claims),
    deletingConfigMaps: present(deletingConfigMaps),
    leftovers: present(leftovers),
  };
}
