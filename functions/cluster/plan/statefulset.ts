// One server's StatefulSet (replicas 1) with the nats container and the exporter sidecar.
import type { Cluster as NatsCluster } from "../cluster.ts";
import { RENDERED_ANNOTATIONS, VOLUME_DIGEST_ANNOTATION } from "../../../shared/api/index.ts";
import type { KubeObject } from "../../../shared/kube/index.ts";
import {
  PORTS,
  clusterSelector,
  configMapName,
  headlessServiceName,
  leafRemotesSecretName,
  serverLabels,
  serverName,
  serverSelector,
} from "../names.ts";
import type { DerivedLimits } from "./limits.ts";
import { mergePodSpec } from "./merge-pod-spec.ts";
import { CONFIG_KEY, POD_PATHS } from "./paths.ts";

export const EXPORTER_IMAGE = "natsio/prometheus-nats-exporter";
export const EXPORTER_TAG = "0.20.2";
export const DEFAULT_IMAGE_REPOSITORY = "nats";
export const TERMINATION_GRACE_SECONDS = 300;
export const RUN_AS = 1000;

export interface StatefulSetInput {
  cluster: NatsCluster;
  ordinal: number;
  limits: DerivedLimits;
  routeTls: boolean;
  /** Secret mounted for route TLS. */
  routeTlsSecret: string;
  /** Secret mounted for client TLS, when `spec.tls` is set. */
  clientTlsSecret?: string;
  /** Secret mounted for gateway TLS, when `gateway.tls` is set. */
  gatewayTlsSecret?: string;
  /** Secret mounted for the leafnode listener's TLS, when `leafnodes.tls` is set. */
  leafnodesTlsSecret?: string;
  /** The remotes' creds and CAs are projected beside the config (`leafRemotes` admitted). */
  leafRemotesSecret?: boolean;
}

/** JetStream stores and the account resolver's directory both live on the data volume. */
const needsData = (spec: NatsCluster["spec"]): boolean => spec.jetstream !== undefined || spec.auth !== undefined;

export interface StatefulSetObject extends KubeObject {
  spec: Record<string, unknown> & {
    template: {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: Record<string, unknown>;
    };
  };
}

const restricted = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  capabilities: { drop: ["ALL"] },
};

export function natsImage(spec: NatsCluster["spec"]): string {
  const repository = spec.image?.repository ?? DEFAULT_IMAGE_REPOSITORY;
  return `${repository}:${spec.version}${spec.image?.digest ? `@${spec.image.digest}` : ""}`;
}

function exporterImage(spec: NatsCluster["spec"]): string {
  const image = spec.exporter?.image;
  return `${image?.repository ?? EXPORTER_IMAGE}:${image?.tag ?? EXPORTER_TAG}${image?.digest ? `@${image.digest}` : ""}`;
}

const httpProbe = (path: string, periodSeconds: number, failureThreshold: number) => ({
  httpGet: { path, port: "monitor" },
  periodSeconds,
  failureThreshold,
});

function natsContainer(input: StatefulSetInput): Record<string, unknown> {
  const spec = input.cluster.spec;
  const mounts: Record<string, unknown>[] = [
    { name: "config", mountPath: POD_PATHS.configDir, readOnly: true },
    { name: "pid", mountPath: POD_PATHS.pidDir },
  ];
  if (needsData(spec)) mounts.push({ name: "data", mountPath: POD_PATHS.dataDir });
  if (input.routeTls) mounts.push({ name: "routes-tls", mountPath: POD_PATHS.routesTlsDir, readOnly: true });
  if (input.clientTlsSecret) mounts.push({ name: "client-tls", mountPath: POD_PATHS.clientTlsDir, readOnly: true });
  if (input.gatewayTlsSecret) mounts.push({ name: "gateway-tls", mountPath: POD_PATHS.gatewayTlsDir, readOnly: true });
  if (input.leafnodesTlsSecret)
    mounts.push({ name: "leafnodes-tls", mountPath: POD_PATHS.leafnodesTlsDir, readOnly: true });
  const ports: { name: string; containerPort: number }[] = [
    { name: "client", containerPort: PORTS.client },
    { name: "route", containerPort: PORTS.route },
    { name: "monitor", containerPort: PORTS.monitor },
  ];
  if (spec.gateway) ports.push({ name: "gateway", containerPort: PORTS.gateway });
  if (spec.leafnodes) ports.push({ name: "leafnodes", containerPort: PORTS.leafnodes });
  const container: Record<string, unknown> = {
    name: "nats",
    image: natsImage(spec),
    args: ["--config", POD_PATHS.configFile],
    ports,
  };
  if (input.limits.goMemLimit !== undefined)
    container["env"] = [{ name: "GOMEMLIMIT", value: input.limits.goMemLimit.toString() }];
  if (spec.resources) container["resources"] = spec.resources;
  container["volumeMounts"] = mounts;
  container["startupProbe"] = httpProbe("/healthz?js-meta-only=true", 10, 90);
  container["readinessProbe"] = httpProbe("/healthz?js-server-only=true", 10, 3);
  container["livenessProbe"] = httpProbe("/healthz?js-enabled-only=true", 30, 3);
  container["lifecycle"] = { preStop: { exec: { command: ["nats-server", "--signal", `ldm=${POD_PATHS.pidFile}`] } } };
  container["securityContext"] = restricted;
  return container;
}

function exporterContainer(spec: NatsCluster["spec"]): Record<string, unknown> {
  return {
    name: "exporter",
    image: exporterImage(spec),
    args: [
      `-port=${PORTS.metrics}`,
      "-connz",
      "-routez",
      "-subz",
      "-varz",
      "-healthz",
      "-jsz=all",
      `http://localhost:${PORTS.monitor}`,
    ],
    ports: [{ name: "metrics", containerPort: PORTS.metrics }],
    resources: spec.exporter?.resources ?? {
      requests: { cpu: "10m", memory: "32Mi" },
      limits: { cpu: "100m", memory: "128Mi" },
    },
    securityContext: restricted,
  };
}

function volumes(input: StatefulSetInput, server: string): Record<string, unknown>[] {
  const sources: Record<string, unknown>[] = [
    { configMap: { name: configMapName(server), items: [{ key: CONFIG_KEY, path: CONFIG_KEY }] } },
  ];
  // One projected volume, so the kubelet swaps the config and the remotes' creds together.
  if (input.leafRemotesSecret) sources.push({ secret: { name: leafRemotesSecretName(input.cluster.metadata.name) } });
  const list: Record<string, unknown>[] = [
    { name: "config", projected: { sources } },
    { name: "pid", emptyDir: {} },
  ];
  if (needsData(input.cluster.spec) && !input.cluster.spec.jetstream?.volumeClaimTemplate)
    list.push({ name: "data", emptyDir: {} });
  if (input.routeTls) list.push({ name: "routes-tls", secret: { secretName: input.routeTlsSecret } });
  if (input.clientTlsSecret) list.push({ name: "client-tls", secret: { secretName: input.clientTlsSecret } });
  if (input.gatewayTlsSecret) list.push({ name: "gateway-tls", secret: { secretName: input.gatewayTlsSecret } });
  if (input.leafnodesTlsSecret) list.push({ name: "leafnodes-tls", secret: { secretName: input.leafnodesTlsSecret } });
  return list;
}

/** The pod spec before the user's podTemplate is merged over it. */
function renderedPodSpec(input: StatefulSetInput, server: string): Record<string, unknown> {
  const spec = input.cluster.spec;
  const containers = [natsContainer(input)];
  if (spec.exporter?.enabled !== false) containers.push(exporterContainer(spec));
  return {
    automountServiceAccountToken: false,
    terminationGracePeriodSeconds: TERMINATION_GRACE_SECONDS,
    securityContext: {
      runAsNonRoot: true,
      runAsUser: RUN_AS,
      runAsGroup: RUN_AS,
      fsGroup: RUN_AS,
      fsGroupChangePolicy: "OnRootMismatch",
      seccompProfile: { type: "RuntimeDefault" },
    },
    affinity: {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: {
              topologyKey: "kubernetes.io/hostname",
              labelSelector: { matchLabels: clusterSelector(input.cluster.metadata.name) },
            },
          },
        ],
      },
    },
    containers,
    volumes: volumes(input, server),
  };
}

function volumeClaimTemplates(cluster: NatsCluster, server: string): Record<string, unknown>[] | undefined {
  const template = cluster.spec.jetstream?.volumeClaimTemplate;
  if (!template) return undefined;
  const name = cluster.metadata.name;
  return [
    {
      metadata: {
        name: "data",
        labels: { ...(template.metadata?.labels ?? {}), ...serverLabels(name, server) },
        ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
      },
      spec: { accessModes: ["ReadWriteOnce"], ...template.spec },
    },
  ];
}

/**
 * The StatefulSet spec of one server, without the revision annotations (those depend
 * on the hash of this very spec). `volumeClaimTemplates` is kept apart: a change there
 * replaces the server instead of restarting it.
 */
export interface RenderedStatefulSetSpec {
  spec: Record<string, unknown> & {
    template: {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: Record<string, unknown>;
    };
  };
  volumeClaimTemplates?: Record<string, unknown>[];
}

export function renderStatefulSetSpec(input: StatefulSetInput): RenderedStatefulSetSpec {
  const cluster = input.cluster;
  const name = cluster.metadata.name;
  const server = serverName(name, input.ordinal);
  const podMeta = cluster.spec.podTemplate?.metadata;
  const podSpec = mergePodSpec(
    renderedPodSpec(input, server),
    cluster.spec.podTemplate?.spec as Record<string, unknown> | undefined,
  );
  const spec = {
    replicas: 1,
    serviceName: headlessServiceName(name),
    podManagementPolicy: "Parallel",
    selector: { matchLabels: serverSelector(name, server) },
    template: {
      metadata: {
        labels: { ...(podMeta?.labels ?? {}), ...serverLabels(name, server) },
        annotations: { ...(podMeta?.annotations ?? {}) },
      },
      spec: podSpec,
    },
  };
  const claims = volumeClaimTemplates(cluster, server);
  return claims ? { spec, volumeClaimTemplates: claims } : { spec };
}

export interface StatefulSetDigests {
  revision: string;
  specDigest: string;
  volumeDigest: string;
}

/** The whole StatefulSet object as applied, its pod template carrying the revision it restarts for. */
export function renderStatefulSet(
  input: StatefulSetInput,
  digests: StatefulSetDigests,
  owner: KubeObject["metadata"]["ownerReferences"],
): StatefulSetObject {
  const cluster = input.cluster;
  const name = cluster.metadata.name;
  const server = serverName(name, input.ordinal);
  const { spec, volumeClaimTemplates } = renderStatefulSetSpec(input);
  const template = spec.template;
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: {
      name: server,
      namespace: cluster.metadata.namespace,
      labels: serverLabels(name, server),
      annotations: {
        [RENDERED_ANNOTATIONS.configRevision]: digests.revision,
        [RENDERED_ANNOTATIONS.specDigest]: digests.specDigest,
        [VOLUME_DIGEST_ANNOTATION]: digests.volumeDigest,
      },
      ...(owner ? { ownerReferences: owner } : {}),
    },
    spec: {
      ...spec,
      template: {
        ...template,
        metadata: {
          ...template.metadata,
          annotations: { ...template.metadata.annotations, [RENDERED_ANNOTATIONS.configRevision]: digests.revision },
        },
      },
      ...(volumeClaimTemplates ? { volumeClaimTemplates } : {}),
    },
  };
}
