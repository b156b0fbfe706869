// Everything one render-cluster delivery reads, and nothing else: the trust the NatsCluster runs
// under, its route, client, gateway and leafnode TLS Secrets, the namespace's cert-manager
// Certificates, its leaf remotes' NatsConnections, and the objects of the names it renders (with
// the servers' data claims). What it all comes to is decided in decide.ts.
import type { Kube } from "../../shared/kube/client.ts";
import { keyOf, type KubeObject, type ObjectKey } from "../../shared/kube/object.ts";
import {
  claimName,
  clientTlsSecretName,
  type Cluster,
  type ClusterPlan,
  type LeafRemotes,
  type ListenerSecrets,
  operatorNamespace,
  planCluster,
  readListenerSecrets,
  type ReadyTrust,
  type RefusedTrust,
  resolveLeafRemotes,
  resolveTrust,
} from "../cluster/index.ts";
import { type ObservedCertificates, readCertificates } from "./tls/certificates.ts";
import { readRouteSecrets, type RouteSecrets, secretKey, type SecretObject } from "./tls/route-secrets.ts";

export interface ServerObjects {
  statefulSet?: KubeObject;
  configMap?: KubeObject & { data?: Record<string, string> };
  claim?: KubeObject;
}

/** The objects of the rendered names: shared ones by `Kind/name`, a server's by server name. */
export interface RenderedObjects {
  /** Shared objects, and those of names rendered only on demand (a listener's Service). */
  shared: Map<string, KubeObject | undefined>;
  servers: Map<string, ServerObjects>;
}

/** A NatsCluster whose trust is refused: nothing else is read, since nothing is rendered. */
export interface HeldCluster {
  kind: "held";
  cluster: Cluster;
  refused: RefusedTrust;
}

/** A NatsCluster to render, and everything its render is made of or written over. */
export interface RenderableCluster {
  kind: "render";
  cluster: Cluster;
  /** The trust `spec.auth` resolved to; absent without auth. */
  trust?: ReadyTrust;
  /** The namespace the operator runs in (admitted to the monitoring port). */
  operatorNamespace?: string;
  routes: RouteSecrets;
  /** The client TLS Secret `spec.tls` names, when it exists. */
  clientTls?: SecretObject;
  /** The gateway and leafnode listener TLS Secrets' data. */
  listeners: ListenerSecrets;
  /** The leaf remotes as read: rendered, or refused and left out. */
  leafRemotes: LeafRemotes;
  /** The namespace's cert-manager Certificates, or that cert-manager is not installed. */
  certificates: ObservedCertificates;
  rendered: RenderedObjects;
}

export type Observed = HeldCluster | RenderableCluster;

export const sharedKey = (object: KubeObject): string => `${object.kind}/${object.metadata.name}`;

async function readRendered(kube: Kube, plan: ClusterPlan, namespace: string): Promise<RenderedObjects> {
  const shared = new Map<string, KubeObject | undefined>();
  const keys: ObjectKey[] = [...plan.shared.map(keyOf), ...plan.retired.map((r) => ({ ...r, namespace }))];
  await Promise.all(keys.map(async (key) => shared.set(`${key.kind}/${key.name}`, await kube.get(key))));
  const servers = new Map<string, ServerObjects>();
  await Promise.all(
    plan.servers.map(async (server) => {
      const [statefulSet, configMap, claim] = await Promise.all([
        kube.get<KubeObject>(keyOf(server.statefulSet)),
        kube.get<KubeObject & { data?: Record<string, string> }>(keyOf(server.configMap)),
        kube.get<KubeObject>({
          apiVersion: "v1",
          kind: "PersistentVolumeClaim",
          namespace,
          name: claimName(server.name),
        }),
      ]);
      servers.set(server.name, {
        ...(statefulSet ? { statefulSet } : {}),
        ...(configMap ? { configMap } : {}),
        ...(claim ? { claim } : {}),
      });
    }),
  );
  return { shared, servers };
}

export async function observe(kube: Kube, cluster: Cluster): Promise<Observed> {
  const trust = await resolveTrust(kube, cluster);
  if (trust?.kind === "refused") return { kind: "held", cluster, refused: trust };
  const namespace = operatorNamespace();
  // Planned here only for the names of what is rendered, which the TLS data does not change; the
  // render itself is planned in decide.ts, from the route Secrets as phase 1 leaves them.
  const names = planCluster({
    cluster,
    ...(namespace ? { operatorNamespace: namespace } : {}),
    ...(trust ? { trust } : {}),
  });
  const clientName = clientTlsSecretName(cluster);
  const [routes, clientTls, listeners, leafRemotes, certificates, rendered] = await Promise.all([
    readRouteSecrets(kube, cluster),
    clientName ? kube.get<SecretObject>(secretKey(cluster, clientName)) : Promise.resolve(undefined),
    readListenerSecrets(kube, cluster),
    resolveLeafRemotes(kube, cluster, trust),
    readCertificates(kube, cluster),
    readRendered(kube, names, cluster.metadata.namespace),
  ]);
  return {
    kind: "render",
    cluster,
    ...(trust ? { trust } : {}),
    ...(namespace ? { operatorNamespace: namespace } : {}),
    routes,
    ...(clientTls ? { clientTls } : {}),
    listeners,
    leafRemotes,
    certificates,
    rendered,
  };
}
