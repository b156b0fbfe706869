// Everything one rollout decision needs: the planned render, the servers' StatefulSets and
// ConfigMaps, objects of rendered names held by others, and the NATS cluster itself.
import {
  REMOVAL_ANNOTATION,
  RENDERED_ANNOTATIONS,
  VOLUME_DIGEST_ANNOTATION,
} from "../../shared/api/constants/annotations.ts";
import { LABELS } from "../../shared/api/constants/labels.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { keyOf, type KubeObject } from "../../shared/kube/object.ts";
import {
  clientTlsSecretName,
  type Cluster,
  type ClusterPlan,
  CONFIG_KEY,
  configMapName,
  operatorNamespace,
  ordinalOf,
  planCluster,
  resolveTrust,
  routeTlsPlan,
} from "../cluster/index.ts";
import { describeObject, isControlledBy } from "../../shared/kube/ownership.ts";
import { readServers, type MonitorAddress } from "./monitor.ts";
import type { ServerInput } from "./plan.ts";
import type { Hold } from "./progressing-reason.ts";
import { authChange } from "./auth-change.ts";
import { restartReason } from "./restart-reason.ts";
import { mergeSnapshot, type ServerReport, type Snapshot } from "./snapshot.ts";

export type StatefulSet = KubeObject & {
  spec: {
    template: {
      metadata?: { annotations?: Record<string, string> };
      spec: { containers?: { name: string; image?: string }[] };
    };
  } & Record<string, unknown>;
  status?: { observedGeneration?: number; readyReplicas?: number; updatedReplicas?: number };
};
export type ConfigMap = KubeObject & { data?: Record<string, string> };
type Secret = KubeObject & { data?: Record<string, string> };

export interface ClusterObservation {
  plan: ClusterPlan;
  /** False while the mounted TLS Secrets are not there yet. */
  certificatesReady: boolean;
  /** Set while the trust is refused: the servers are held at their last render. */
  hold?: Hold;
  statefulSets: Map<string, StatefulSet>;
  configMaps: Map<string, ConfigMap>;
  foreign: string[];
  reports: ServerReport[];
  snapshot?: Snapshot;
  servers: ServerInput[];
}

export function podReady(sts: StatefulSet): boolean {
  const status = sts.status ?? {};
  return (
    (status.observedGeneration ?? 0) >= (sts.metadata.generation ?? 0) &&
    (status.updatedReplicas ?? 0) > 0 &&
    (status.readyReplicas ?? 0) > 0
  );
}

function runningVersion(sts: StatefulSet): string | undefined {
  const image = sts.spec.template.spec.containers?.find((c) => c.name === "nats")?.image ?? "";
  const match = /:([^:@/]+)(@|$)/.exec(image);
  return match?.[1];
}

const secretKey = (cluster: Cluster, name: string) => ({
  apiVersion: "v1",
  kind: "Secret",
  namespace: cluster.metadata.namespace,
  name,
});

/**
 * The render render-cluster makes of this cluster, from the same inputs read the same way. While
 * the trust is refused there is no render to move to: the plan (without auth) then serves only
 * for names, and `hold` says why.
 */
export async function planFor(
  kube: Kube,
  cluster: Cluster,
): Promise<{ plan: ClusterPlan; certificatesReady: boolean; hold?: Hold }> {
  const routes = routeTlsPlan(cluster);
  const clientName = clientTlsSecretName(cluster);
  const [routeSecret, clientSecret, trust] = await Promise.all([
    routes.enabled ? kube.get<Secret>(secretKey(cluster, routes.secretName)) : Promise.resolve(undefined),
    clientName ? kube.get<Secret>(secretKey(cluster, clientName)) : Promise.resolve(undefined),
    resolveTrust(kube, cluster),
  ]);
  const ns = operatorNamespace();
  const plan = planCluster({
    cluster,
    ...(routeSecret?.data ? { routeTlsData: routeSecret.data } : {}),
    ...(clientSecret?.data ? { clientTlsData: clientSecret.data } : {}),
    ...(ns ? { operatorNamespace: ns } : {}),
    ...(trust?.kind === "ready" ? { trust } : {}),
  });
  const certificatesReady =
    (!routes.enabled || Boolean(routeSecret?.data?.["tls.crt"])) &&
    (!clientName || Boolean(clientSecret?.data?.["tls.crt"]));
  return {
    plan,
    certificatesReady,
    ...(trust?.kind === "refused" ? { hold: { reason: trust.reason, message: trust.message } } : {}),
  };
}

export async function observeCluster(
  kube: Kube,
  cluster: Cluster,
  address?: MonitorAddress,
): Promise<ClusterObservation> {
  const name = cluster.metadata.name;
  const namespace = cluster.metadata.namespace;
  const { plan, certificatesReady, hold } = await planFor(kube, cluster);
  const labelSelector = `${LABELS.cluster}=${name}`;
  const [stsList, cmList] = await Promise.all([
    kube.list<StatefulSet>({ apiVersion: "apps/v1", kind: "StatefulSet", namespace, labelSelector }),
    kube.list<ConfigMap>({ apiVersion: "v1", kind: "ConfigMap", namespace, labelSelector }),
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
  const found = await Promise.all(candidates.map((c) => kube.get<KubeObject>(keyOf(c))));
  const foreign = found
    .filter((o): o is KubeObject => o !== undefined && !isControlledBy(o, cluster))
    .map(describeObject);

  const jetstream = cluster.spec.jetstream !== undefined;
  const existing = [...statefulSets.keys()];
  const roster = [...new Set([...plan.servers.map((s) => s.name), ...existing])].sort(
    (a, b) => (ordinalOf(name, a) ?? 0) - (ordinalOf(name, b) ?? 0),
  );
  const reports = await readServers(name, namespace, existing, jetstream, address);
  const snapshot = mergeSnapshot(existing, reports, jetstream);

  const servers = roster.map((server): ServerInput => {
    const ordinal = ordinalOf(name, server) ?? 0;
    const planned = plan.servers.find((p) => p.name === server);
    const sts = statefulSets.get(server);
    const report = reports.find((r) => r.server === server);
    const annotations = sts?.metadata.annotations ?? {};
    // Held, a server stays where it is: there is no revision to move it to.
    const onTarget = hold !== undefined || annotations[RENDERED_ANNOTATIONS.configRevision] === plan.revision;
    const version = runningVersion(sts ?? ({ spec: { template: { spec: {} } } } as StatefulSet));
    const input: ServerInput = {
      name: server,
      ordinal,
      planned: planned !== undefined,
      exists: sts !== undefined,
      onTarget: sts !== undefined && onTarget,
      podReady: sts !== undefined && podReady(sts),
    };
    if (sts && planned && !onTarget) {
      input.restartReason = restartReason(
        {
          ...(annotations[RENDERED_ANNOTATIONS.specDigest]
            ? { specDigest: annotations[RENDERED_ANNOTATIONS.specDigest] }
            : {}),
          ...(version ? { runningVersion: version } : {}),
          ...(configMaps.get(planned.configMap.metadata.name)?.data?.[CONFIG_KEY] !== undefined
            ? { runningConfig: configMaps.get(planned.configMap.metadata.name)?.data?.[CONFIG_KEY] ?? "" }
            : {}),
        },
        { specDigest: planned.specDigest, version: cluster.spec.version, config: planned.config },
      );
    }
    const runningConfig = configMaps.get(configMapName(server))?.data?.[CONFIG_KEY];
    const change =
      sts && planned && !hold && runningConfig !== undefined ? authChange(runningConfig, planned.config) : undefined;
    if (change) input.authChange = change;
    const volumeDigest = annotations[VOLUME_DIGEST_ANNOTATION];
    if (sts && planned && volumeDigest !== undefined && volumeDigest !== planned.volumeDigest) input.replace = true;
    if (sts && planned && annotations[REMOVAL_ANNOTATION] === "Requested") input.replace = true;
    const revision = report?.varz?.server_name === server ? report.varz.metadata?.["config_revision"] : undefined;
    if (revision) input.reportedRevision = revision;
    if (report?.varz?.server_name === server && report.varz.version) input.reportedVersion = report.varz.version;
    return input;
  });

  return {
    plan,
    certificatesReady,
    ...(hold ? { hold } : {}),
    statefulSets,
    configMaps,
    foreign,
    reports,
    ...(snapshot ? { snapshot } : {}),
    servers,
  };
}
