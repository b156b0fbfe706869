// Everything a NatsCluster renders to, computed from the object and the TLS Secrets it mounts.
import type { Cluster as NatsCluster } from "../cluster.ts";
import { RENDERED_ANNOTATIONS } from "../../../shared/api/index.ts";
import { controllerReference, type KubeObject } from "../../../shared/kube/index.ts";
import {
  PORTS,
  clusterLabels,
  configMapName,
  gatewayServiceName,
  headlessServiceName,
  leafRemotesSecretName,
  routesTlsSecretName,
  serverLabels,
  serverName,
} from "../names.ts";
import type { ReadyTrust } from "../trust/trust-validation.ts";
import { canonicalJson, configRevision, secretDigest, shortDigest } from "./revision.ts";
import { authConfig } from "./auth-config.ts";
import { gatewayTlsSecretName } from "./gateway.ts";
import { leafnodesTlsSecretName, leafRemotesSecretData, type ReadyLeafRemote } from "./leafnodes.ts";
import { deriveLimits, limitsStatus, type DerivedLimits } from "./limits.ts";
import { renderNetworkPolicy } from "./network-policy.ts";
import { CONFIG_KEY } from "./paths.ts";
import { renderPdb } from "./pdb.ts";
import { renderServerConfig } from "./server-config.ts";
import { listenerServiceNames, renderServices } from "./services.ts";
import { renderStatefulSet, renderStatefulSetSpec, type StatefulSetObject } from "./statefulset.ts";

export interface ClusterPlanInput {
  cluster: NatsCluster;
  /** Data (base64 values) of the mounted route TLS Secret; undefined while route TLS is off. */
  routeTlsData?: Record<string, string>;
  /** Data of the mounted client TLS Secret when `spec.tls` names one. */
  clientTlsData?: Record<string, string>;
  /** Data of the mounted gateway TLS Secret when `gateway.tls` names one. */
  gatewayTlsData?: Record<string, string>;
  /** Data of the mounted leafnode listener TLS Secret when `leafnodes.tls` names one. */
  leafnodesTlsData?: Record<string, string>;
  /** The leaf remotes admitted and read (a refused one is left out of the render). */
  leafRemotes?: readonly ReadyLeafRemote[];
  /** Namespace the operator runs in, admitted to the monitoring port. */
  operatorNamespace?: string;
  /**
   * The trust `spec.auth.trustRef` resolved to. A NatsCluster with `spec.auth` must be planned
   * with it: callers hold the cluster while the trust is refused, and without it the servers
   * would render without auth.
   */
  trust?: ReadyTrust;
}

export type ConfigMapObject = KubeObject & { data: Record<string, string> };

export interface PlannedServer {
  name: string;
  ordinal: number;
  /** Final config text, reporting the revision. */
  config: string;
  configMap: ConfigMapObject;
  statefulSet: StatefulSetObject;
  specDigest: string;
  volumeDigest: string;
}

export interface RouteTlsPlan {
  enabled: boolean;
  /** The mounted Secret. */
  secretName: string;
  /** True when the operator issues the certificate itself (no secretRef, no certManager). */
  selfSigned: boolean;
}

export interface ClusterPlan {
  revision: string;
  servers: PlannedServer[];
  shared: KubeObject[];
  /** Objects of names this cluster renders only on demand that the spec does not want now. */
  retired: { apiVersion: string; kind: string; name: string }[];
  limits: DerivedLimits;
  routeTls: RouteTlsPlan;
  clientTlsSecret?: string;
  status: {
    replicas: number;
    endpoints: { client: string; monitor: string; gateway?: string };
    jetstream?: { limits: { maxMemoryStore?: string; maxFileStore?: string } };
  };
}

export function routeTlsPlan(cluster: NatsCluster): RouteTlsPlan {
  const tls = cluster.spec.routes?.tls;
  const enabled = tls?.enabled !== false;
  const secretName = tls?.secretRef?.name ?? routesTlsSecretName(cluster.metadata.name);
  return { enabled, secretName, selfSigned: enabled && !tls?.secretRef && !tls?.certManager };
}

export function clientTlsSecretName(cluster: NatsCluster): string | undefined {
  const tls = cluster.spec.tls;
  if (!tls) return undefined;
  return tls.secretRef?.name ?? `${cluster.metadata.name}-client-tls`;
}

export function planCluster(input: ClusterPlanInput): ClusterPlan {
  const { cluster } = input;
  const name = cluster.metadata.name;
  const namespace = cluster.metadata.namespace ?? "default";
  const owner = [controllerReference(cluster as KubeObject)];
  const limits = deriveLimits(cluster.spec);
  const routeTls = routeTlsPlan(cluster);
  const clientTlsSecret = clientTlsSecretName(cluster);
  const gatewayTlsSecret = gatewayTlsSecretName(cluster);
  const leafnodesTlsSecret = leafnodesTlsSecretName(cluster);
  const leafRemotes = input.leafRemotes ?? [];
  // The creds Secret is projected only while a remote is rendered: the first one added restarts.
  const leafRemotesSecret = leafRemotes.length > 0;
  const ordinals = Array.from({ length: cluster.spec.replicas }, (_, i) => i);
  // The trust is in the config, so a new operator or system account JWT is a new revision.
  const baseAuth = cluster.spec.auth && input.trust ? authConfig(cluster, input.trust) : undefined;
  // A remote's local account is preloaded too, so the leaf serves it before its hub is reached.
  const remotePreloads = Object.fromEntries(
    (input.leafRemotes ?? []).flatMap((r) => (r.account && r.accountJwt ? [[r.account, r.accountJwt]] : [])),
  );
  const auth = baseAuth ? { ...baseAuth, preload: { ...baseAuth.preload, ...remotePreloads } } : undefined;

  const drafts = ordinals.map((ordinal) => {
    const base = { cluster, ordinal, limits, routeTls: routeTls.enabled };
    const configInput = {
      ...base,
      clientTls: clientTlsSecret !== undefined,
      ...(auth ? { auth } : {}),
      ...(leafRemotes.length > 0 ? { leafRemotes } : {}),
    };
    const draftConfig = renderServerConfig(configInput);
    const stsInput = {
      ...base,
      routeTlsSecret: routeTls.secretName,
      ...(clientTlsSecret ? { clientTlsSecret } : {}),
      ...(gatewayTlsSecret ? { gatewayTlsSecret } : {}),
      ...(leafnodesTlsSecret ? { leafnodesTlsSecret } : {}),
      ...(leafRemotesSecret ? { leafRemotesSecret } : {}),
    };
    const { spec, volumeClaimTemplates } = renderStatefulSetSpec(stsInput);
    const specJson = canonicalJson(spec);
    return {
      ordinal,
      stsInput,
      configInput,
      draftConfig,
      specJson,
      specDigest: shortDigest(specJson),
      volumeDigest: volumeClaimTemplates ? shortDigest(canonicalJson(volumeClaimTemplates)) : "",
    };
  });
  const revision = configRevision(
    drafts.map((d) => ({ config: canonicalJson(JSON.parse(d.draftConfig)), specJson: d.specJson })),
    {
      client: clientTlsSecret ? secretDigest(input.clientTlsData) : "",
      routes: routeTls.enabled ? secretDigest(input.routeTlsData) : "",
      gateway: gatewayTlsSecret ? secretDigest(input.gatewayTlsData) : "",
      leafnodes: leafnodesTlsSecret ? secretDigest(input.leafnodesTlsData) : "",
    },
  );

  const servers = drafts.map((d): PlannedServer => {
    const server = serverName(name, d.ordinal);
    const config = renderServerConfig({ ...d.configInput, revision });
    return {
      name: server,
      ordinal: d.ordinal,
      config,
      specDigest: d.specDigest,
      volumeDigest: d.volumeDigest,
      configMap: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: configMapName(server),
          namespace,
          labels: serverLabels(name, server),
          annotations: { [RENDERED_ANNOTATIONS.configRevision]: revision },
          ownerReferences: owner,
        },
        data: { [CONFIG_KEY]: config },
      },
      statefulSet: renderStatefulSet(
        d.stsInput,
        { revision, specDigest: d.specDigest, volumeDigest: d.volumeDigest },
        owner,
      ),
    };
  });

  const networkPolicy = renderNetworkPolicy(cluster, owner, input.operatorNamespace);
  const shared: KubeObject[] = [
    ...renderServices(cluster, owner),
    renderPdb(cluster, owner),
    ...(networkPolicy ? [networkPolicy] : []),
  ];
  if (leafRemotesSecret) {
    shared.push({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: leafRemotesSecretName(name), namespace, labels: clusterLabels(name), ownerReferences: owner },
      type: "Opaque",
      data: leafRemotesSecretData(leafRemotes),
    } as KubeObject);
  }
  const retired = [
    ...listenerServiceNames(cluster)
      .filter((s) => !s.wanted)
      .map((s) => ({ apiVersion: "v1", kind: "Service", name: s.name })),
    ...(leafRemotesSecret ? [] : [{ apiVersion: "v1", kind: "Secret", name: leafRemotesSecretName(name) }]),
  ];
  const gatewayEndpoint =
    cluster.spec.gateway?.advertise ??
    (cluster.spec.gateway?.service ? `${gatewayServiceName(name)}.${namespace}.svc:${PORTS.gateway}` : undefined);
  const scheme = clientTlsSecret ? "tls" : "nats";
  const jetstreamLimits = limitsStatus(limits);
  return {
    revision,
    servers,
    shared,
    retired,
    limits,
    routeTls,
    ...(clientTlsSecret ? { clientTlsSecret } : {}),
    status: {
      replicas: cluster.spec.replicas,
      endpoints: {
        client: `${scheme}://${name}.${namespace}.svc:${PORTS.client}`,
        monitor: `http://${headlessServiceName(name)}.${namespace}.svc:${PORTS.monitor}`,
        ...(gatewayEndpoint ? { gateway: gatewayEndpoint } : {}),
      },
      ...(cluster.spec.jetstream ? { jetstream: { limits: jetstreamLimits } } : {}),
    },
  };
}
