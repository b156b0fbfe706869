// Everything one render-cluster delivery reads, and nothing else: the inputs of the cluster's plan
// (the trust it runs under, its route, client, gateway and leafnode TLS Secrets, its leaf remotes'
// NatsConnections; read by the cluster package's readPlanInputs, as step-rollout reads them), the
// namespace's cert-manager Certificates, and the objects of the names it renders (with the
// servers' data claims). What it all comes to is decided in decide.ts.
import { keyOf, type Kube, type KubeObject, type ObjectKey } from "../../shared/kube/index.ts";
import {
  claimName,
  type Cluster,
  type ClusterPlan,
  type PlanInputs,
  planCluster,
  readPlanInputs,
  type RefusedTrust,
} from "../cluster/index.ts";
import { type ObservedCertificates, readCertificates } from "./tls/certificates.ts";

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

/** A NatsCluster to render, and everything its render is made of (its plan's inputs) or written over. */
export interface RenderableCluster extends PlanInputs {
  kind: "render";
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
  const [{ refused, ...inputs }, certificates] = await Promise.all([
    readPlanInputs(kube, cluster),
    readCertificates(kube, cluster),
  ]);
  if (refused) return { kind: "held", cluster, refused };
  // Planned here only for the names of what is rendered, which the TLS data does not change; the
  // render itself is planned in decide.ts, from the route Secrets as phase 1 leaves them.
  const names = planCluster({
    cluster,
    ...(inputs.operatorNamespace ? { operatorNamespace: inputs.operatorNamespace } : {}),
    ...(inputs.trust ? { trust: inputs.trust } : {}),
  });
  const rendered = await readRendered(kube, names, cluster.metadata.namespace);
  return { kind: "render", ...inputs, certificates, rendered };
}
