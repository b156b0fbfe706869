// What render-cluster reads besides the NatsCluster: the objects of the names it renders.
import type { Kube } from "../../shared/kube/client.ts";
import { keyOf, type KubeObject } from "../../shared/kube/object.ts";
import { claimName, type ClusterPlan } from "../cluster/index.ts";

export interface ServerObjects {
  statefulSet?: KubeObject;
  configMap?: KubeObject & { data?: Record<string, string> };
  claim?: KubeObject;
}

export interface RenderObservation {
  shared: Map<string, KubeObject | undefined>;
  servers: Map<string, ServerObjects>;
}

const sharedKey = (object: KubeObject): string => `${object.kind}/${object.metadata.name}`;

export async function observeRendered(kube: Kube, plan: ClusterPlan, namespace: string): Promise<RenderObservation> {
  const shared = new Map<string, KubeObject | undefined>();
  await Promise.all(plan.shared.map(async (object) => shared.set(sharedKey(object), await kube.get(keyOf(object)))));
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

export { sharedKey };
