// What leads to a NatsCluster besides its own events, for the reconcilers of render-cluster and
// step-rollout: a change of one of its servers' StatefulSets, and the ticks of its own schedules
// (whose work names the cluster as `{namespace, cluster}`, as the PingSources already running do).
import type { Kube, KubeObject, ObjectKey } from "../../shared/kube/index.ts";
import type { KindRef, ObjectRef, Related, RelatedContext } from "../../shared/runtime/index.ts";
import { asCluster, type Cluster } from "./cluster.ts";
import { CLUSTER_API_VERSION, CLUSTER_KIND } from "./names.ts";

export const CLUSTER_REF: KindRef = { apiVersion: CLUSTER_API_VERSION, kind: CLUSTER_KIND };

const clusterKey = (namespace: string, name: string): ObjectKey => ({ ...CLUSTER_REF, namespace, name });

/** A server's StatefulSet leads to the NatsCluster that controls it, or, once deleted, to the one its name says. */
export const fromServerStatefulSets: Related = {
  kind: { apiVersion: "apps/v1", kind: "StatefulSet" },
  async map(ref: ObjectRef, { kube }: RelatedContext) {
    const { apiVersion, kind, namespace, name } = ref;
    const child = await kube.get<KubeObject>({ apiVersion, kind, namespace, name });
    if (child) {
      const owner = child.metadata.ownerReferences?.find(
        (o) => o.controller && o.kind === CLUSTER_KIND && o.apiVersion.startsWith("cluster.nats-operator.io/"),
      );
      return owner ? [clusterKey(namespace, owner.name)] : [];
    }
    // A deleted server: its name is `<cluster>-<ordinal>`.
    const match = /^(.+)-(0|[1-9][0-9]*)$/.exec(name);
    return match?.[1] ? [clusterKey(namespace, match[1])] : [];
  },
};

/** A tick of the cluster's own schedules names it in its work; other ticks are not about clusters. */
export const fromClusterTicks: Related = {
  tick: true,
  map: async (work: Readonly<Record<string, unknown>>) => {
    const { namespace, cluster } = work;
    return typeof namespace === "string" && typeof cluster === "string" && namespace && cluster
      ? [clusterKey(namespace, cluster)]
      : undefined;
  },
};

export async function readCluster(kube: Kube, namespace: string, name: string): Promise<Cluster | undefined> {
  return asCluster(
    await kube.get<KubeObject>({ apiVersion: CLUSTER_API_VERSION, kind: CLUSTER_KIND, namespace, name }),
  );
}
