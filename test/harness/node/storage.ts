// The node's storage, as kind's local-path provisioner gives it: a default
// StorageClass "standard" whose claims get a directory on the node, as a
// `local` PersistentVolume pinned to the node and pre-bound to the claim
// (kube-controller-manager's binder completes the binding); a released
// volume's directory is removed with it. A directory is world-writable, as
// local-path makes them, so a pod's non-root user can write to it.
import { mkdir, rm, chmod } from "node:fs/promises";
import { join } from "node:path";
import type { CoreV1Api, V1PersistentVolume, V1PersistentVolumeClaim } from "@kubernetes/client-node";

export const STORAGE_CLASS = "standard";
export const PROVISIONER = "harness.nats-operator.io/node-directory";

export const storageClass = {
  apiVersion: "storage.k8s.io/v1",
  kind: "StorageClass",
  metadata: { name: STORAGE_CLASS, annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
  provisioner: PROVISIONER,
  reclaimPolicy: "Delete",
  volumeBindingMode: "Immediate",
};

function volumeFor(claim: V1PersistentVolumeClaim, nodeName: string, path: string): V1PersistentVolume {
  const name = `pvc-${claim.metadata?.uid ?? ""}`;
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name, annotations: { "pv.kubernetes.io/provisioned-by": PROVISIONER } },
    spec: {
      capacity: { storage: claim.spec?.resources?.requests?.["storage"] ?? "1Gi" },
      accessModes: claim.spec?.accessModes ?? ["ReadWriteOnce"],
      persistentVolumeReclaimPolicy: "Delete",
      storageClassName: STORAGE_CLASS,
      claimRef: {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        namespace: claim.metadata?.namespace ?? "",
        name: claim.metadata?.name ?? "",
        uid: claim.metadata?.uid ?? "",
      },
      local: { path },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [nodeName] }] },
          ],
        },
      },
    },
  };
}

/** One pass: a volume for every pending claim of the class, and released volumes removed. */
export async function provisionOnce(core: CoreV1Api, nodeName: string, volumesDir: string): Promise<void> {
  const claims = await core.listPersistentVolumeClaimForAllNamespaces();
  const volumes = await core.listPersistentVolume();
  const provisioned = new Set(volumes.items.map((v) => v.metadata?.name));
  for (const claim of claims.items) {
    const className = claim.spec?.storageClassName ?? STORAGE_CLASS;
    if (className !== STORAGE_CLASS || claim.status?.phase !== "Pending" || claim.spec?.volumeName) continue;
    if (provisioned.has(`pvc-${claim.metadata?.uid ?? ""}`)) continue;
    const path = join(
      volumesDir,
      `${claim.metadata?.namespace ?? ""}_${claim.metadata?.name ?? ""}_${claim.metadata?.uid ?? ""}`,
    );
    await mkdir(path, { recursive: true });
    await chmod(path, 0o777);
    await core.createPersistentVolume({ body: volumeFor(claim, nodeName, path) });
  }
  for (const volume of volumes.items) {
    const ours = volume.metadata?.annotations?.["pv.kubernetes.io/provisioned-by"] === PROVISIONER;
    if (!ours || volume.status?.phase !== "Released") continue;
    const path = volume.spec?.local?.path;
    if (path !== undefined && path.startsWith(`${volumesDir}/`)) await rm(path, { recursive: true, force: true });
    await core.deletePersistentVolume({ name: volume.metadata?.name ?? "" });
  }
}
