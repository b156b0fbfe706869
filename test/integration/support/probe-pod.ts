// A pod on the real node that stands for a client in its namespace when a test asks what the
// NetworkPolicies admit: it runs the pause image (already on the node, it holds the pod's network
// and nothing else) under the restricted Pod Security Standard, and the test connects from its
// network with connectFromContainer (test/harness/node/pod-network.ts).
import type { Kube } from "../../../shared/kube/client.ts";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { PAUSE_IMAGE } from "../../harness/node/containerd.ts";
import { waitFor } from "../../harness/wait.ts";

interface Pod extends KubeObject {
  status?: { containerStatuses?: { containerID?: string; ready: boolean }[] };
}

/** Starts the pod `probe` in `namespace` and returns its container's id once it is running. */
export async function startProbePod(kube: Kube, namespace: string, name = "probe"): Promise<{ containerID: string }> {
  await kube.create({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace },
    spec: {
      terminationGracePeriodSeconds: 0,
      containers: [
        {
          name,
          image: PAUSE_IMAGE,
          imagePullPolicy: "Never",
          securityContext: {
            allowPrivilegeEscalation: false,
            capabilities: { drop: ["ALL"] },
            runAsNonRoot: true,
            runAsUser: 65535,
            seccompProfile: { type: "RuntimeDefault" },
          },
        },
      ],
    },
  } as KubeObject);
  return waitFor(
    `${namespace}/${name} running`,
    async () => {
      const pod = await kube.get<Pod>({ apiVersion: "v1", kind: "Pod", namespace, name });
      const status = pod?.status?.containerStatuses?.[0];
      return status?.ready && status.containerID ? { containerID: status.containerID } : undefined;
    },
    { timeoutMs: 60_000 },
  );
}
