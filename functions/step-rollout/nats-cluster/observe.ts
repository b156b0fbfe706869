// Everything one rollout decision needs, read and nothing else: the planned render, the servers'
// StatefulSets and ConfigMaps, objects of rendered names held by others, what every server's
// monitoring port answers, and the system user. What it all means is derived in decide.ts.
import { LABELS } from "../../../shared/api/index.ts";
import { describeObject, isControlledBy, keyOf, type Kube, type KubeObject } from "../../../shared/kube/index.ts";
import {
  allowGatewayWithoutTls,
  type Cluster,
  ordinalOf,
  planOf,
  readPlanInputs,
  type ServerConnectivity,
} from "../../cluster/index.ts";
import { pingConnectivity, readConnectivity } from "../servers/connectivity.ts";
import { readServers, type MonitorAddress } from "../servers/monitor.ts";
import { readSystemUser, systemConnection, type SystemUser } from "../servers/system-user.ts";
import type { ConfigMap, Observed, StatefulSet } from "./types.ts";

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
  const [stsList, cmList, systemUser] = await Promise.all([
    kube.list<StatefulSet>({ apiVersion: "apps/v1", kind: "StatefulSet", namespace, labelSelector }),
    kube.list<ConfigMap>({ apiVersion: "v1", kind: "ConfigMap", namespace, labelSelector }),
    readSystemUser(kube, cluster, plan),
  ]);
  const statefulSets = new Map(
    stsList
      .filter((s) => isControlledBy(s, cluster) && ordinalOf(name, s.metadata.name) !== undefined)
      .map((s) => [s.metadata.name, s]),
  );
  const configMaps = new Map(cmList.filter((c) => isControlledBy(c, cluster)).map((c) => [c.metadata.name, c]));

  // Objects of rendered names that we do not control.
  const candidates: KubeObject[] = [...plan.shared];
  for (const server of plan.servers) {
    if (!statefulSets.has(server.name)) candidates.push(server.statefulSet);
    if (!configMaps.has(server.configMap.metadata.name)) candidates.push(server.configMap);
  }
  const [found, reports, connectivity] = await Promise.all([
    Promise.all(candidates.map((c) => kube.get<KubeObject>(keyOf(c)))),
    readServers(name, namespace, [...statefulSets.keys()], cluster.spec.jetstream !== undefined, address),
    observeConnectivity(cluster, [...statefulSets.keys()], systemUser, address),
  ]);
  const foreign = found
    .filter((o): o is KubeObject => o !== undefined && !isControlledBy(o, cluster))
    .map(describeObject);

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
    reports,
    systemUser,
  };
}
