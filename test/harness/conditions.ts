// Waiting for common Kubernetes conditions.
import { CoreV1Api, AppsV1Api, type KubeConfig, type V1Pod } from "@kubernetes/client-node";
import { waitFor, type WaitOptions } from "./wait.ts";

export function isPodReady(pod: V1Pod): boolean {
  return (
    pod.status?.phase === "Running" &&
    (pod.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")
  );
}

/** Waits until `count` Pods matching `labelSelector` are Running and Ready; returns them. */
export async function waitForReadyPods(
  kc: KubeConfig,
  namespace: string,
  labelSelector: string,
  count: number,
  options: WaitOptions = {},
): Promise<V1Pod[]> {
  const core = kc.makeApiClient(CoreV1Api);
  return waitFor(
    `${count} ready pods (${labelSelector}) in ${namespace}`,
    async () => {
      const pods = (await core.listNamespacedPod({ namespace, labelSelector })).items.filter(
        (p) => p.metadata?.deletionTimestamp == null,
      );
      return pods.length === count && pods.every(isPodReady) ? pods : undefined;
    },
    { timeoutMs: 120_000, ...options },
  );
}

/** Waits until the StatefulSet reports `replicas` ready replicas. */
export async function waitForStatefulSetReady(
  kc: KubeConfig,
  namespace: string,
  name: string,
  options: WaitOptions = {},
): Promise<void> {
  const apps = kc.makeApiClient(AppsV1Api);
  await waitFor(
    `statefulset ${namespace}/${name} to be ready`,
    async () => {
      const sts = await apps.readNamespacedStatefulSet({ namespace, name });
      const want = sts.spec?.replicas ?? 1;
      return (
        (sts.status?.readyReplicas ?? 0) === want &&
        (sts.status?.observedGeneration ?? 0) >= (sts.metadata?.generation ?? 0)
      );
    },
    { timeoutMs: 120_000, ...options },
  );
}

/** Waits until the object's status.conditions has `type` with `status` (default "True"). */
export async function waitForCondition(
  read: () => Promise<{ status?: { conditions?: { type: string; status: string }[] } }>,
  type: string,
  options: WaitOptions & { status?: string } = {},
): Promise<void> {
  const want = options.status ?? "True";
  await waitFor(
    `condition ${type}=${want}`,
    async () => ((await read()).status?.conditions ?? []).some((c) => c.type === type && c.status === want),
    { timeoutMs: 60_000, ...options },
  );
}
