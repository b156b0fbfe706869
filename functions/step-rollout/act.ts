// The one step a decision takes: restart a server by writing its ConfigMap and its
// StatefulSet's pod template, or delete a server that leaves the cluster.
import {
  CLUSTER_ANNOTATIONS,
  REMOVAL_ANNOTATION,
  RENDERED_ANNOTATIONS,
  VOLUME_DIGEST_ANNOTATION,
} from "../../shared/api/constants/annotations.ts";
import { FIELD_MANAGERS } from "../../shared/api/constants/field-managers.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { keyOf } from "../../shared/kube/object.ts";
import { claimName, type Cluster, configMapName, type PlannedServer, serverLabels } from "../cluster/index.ts";
import { isControlledBy } from "../../shared/kube/ownership.ts";
import type { StatefulSet } from "./observe.ts";

export const FIELD_MANAGER = FIELD_MANAGERS.stepRollout;

/**
 * Restarts one server onto the plan: its ConfigMap first (so the new pod reads the new
 * config), then an update of the StatefulSet read now, whose new pod-template revision
 * makes the StatefulSet controller replace the pod. Repeating it changes nothing.
 */
export async function restartServer(kube: Kube, planned: PlannedServer, reason: string | undefined): Promise<void> {
  const configMap = {
    ...planned.configMap,
    metadata: {
      ...planned.configMap.metadata,
      annotations: {
        ...planned.configMap.metadata.annotations,
        [RENDERED_ANNOTATIONS.configApply]: "Restart",
        ...(reason ? { [RENDERED_ANNOTATIONS.restartReason]: reason } : {}),
      },
    },
  };
  const written = await kube.apply(configMap, FIELD_MANAGER);
  // A reload given up or overtaken leaves its start time behind, written by a patch that apply
  // does not own: cleared here, so the ConfigMap tells a restart only.
  const writtenAnnotations: Record<string, string> = written.metadata.annotations ?? {};
  if (writtenAnnotations[RENDERED_ANNOTATIONS.reloadSince] !== undefined) {
    await kube.patch(
      keyOf(planned.configMap),
      { metadata: { annotations: { [RENDERED_ANNOTATIONS.reloadSince]: null } } },
      "merge",
    );
  }
  const current = await kube.get<StatefulSet>(keyOf(planned.statefulSet));
  if (!current) return;
  const rendered = planned.statefulSet;
  const annotations = { ...(current.metadata.annotations ?? {}), ...(rendered.metadata.annotations ?? {}) };
  // The claim template cannot change in place: keep the running one and its digest.
  const volumeDigest = current.metadata.annotations?.[VOLUME_DIGEST_ANNOTATION];
  if (volumeDigest !== undefined) annotations[VOLUME_DIGEST_ANNOTATION] = volumeDigest;
  const { volumeClaimTemplates: _claims, ...renderedSpec } = rendered.spec as Record<string, unknown>;
  const next: StatefulSet = {
    ...current,
    metadata: { ...current.metadata, annotations },
    spec: { ...current.spec, ...renderedSpec, template: rendered.spec.template } as StatefulSet["spec"],
  };
  await kube.replace(next);
}

/**
 * Deletes a server leaving the cluster: its StatefulSet; its data claim only when it carries the
 * server's labels (a claim someone else made is theirs); and, beyond replicas, its ConfigMap when
 * we control it.
 */
export async function deleteServer(kube: Kube, cluster: Cluster, server: string, surplus: boolean): Promise<void> {
  const namespace = cluster.metadata.namespace;
  await kube.delete(
    { apiVersion: "apps/v1", kind: "StatefulSet", namespace, name: server },
    { propagationPolicy: "Background" },
  );
  const claimKey = { apiVersion: "v1", kind: "PersistentVolumeClaim", namespace, name: claimName(server) };
  const claim = await kube.get(claimKey);
  const labels = claim?.metadata.labels ?? {};
  if (claim && Object.entries(serverLabels(cluster.metadata.name, server)).every(([k, v]) => labels[k] === v)) {
    await kube.delete(claimKey, { ...(claim.metadata.uid ? { preconditions: { uid: claim.metadata.uid } } : {}) });
  }
  if (!surplus) return;
  const key = { apiVersion: "v1", kind: "ConfigMap", namespace, name: configMapName(server) };
  const configMap = await kube.get(key);
  if (configMap && isControlledBy(configMap, cluster))
    await kube.delete(key, { ...(configMap.metadata.uid ? { preconditions: { uid: configMap.metadata.uid } } : {}) });
}

/** Clears a one-shot annotation (force-step, restart-all) once it has been acted on. */
export async function clearAnnotation(kube: Kube, cluster: Cluster, annotation: string): Promise<void> {
  await kube.patch(keyOf(cluster), { metadata: { annotations: { [annotation]: null } } }, "merge");
}

/**
 * Reads the one-shot replace-server annotation: marks the named server's StatefulSet
 * `Requested` (unless it already carries a removal phase) and clears the annotation.
 */
export async function takeReplaceRequest(kube: Kube, cluster: Cluster): Promise<string | undefined> {
  const server = cluster.metadata.annotations?.[CLUSTER_ANNOTATIONS.replaceServer];
  if (server === undefined) return undefined;
  const key = { apiVersion: "apps/v1", kind: "StatefulSet", namespace: cluster.metadata.namespace, name: server };
  const sts = await kube.get(key);
  if (sts && isControlledBy(sts, cluster) && sts.metadata.annotations?.[REMOVAL_ANNOTATION] === undefined) {
    await kube.patch(
      key,
      {
        metadata: { annotations: { [REMOVAL_ANNOTATION]: "Requested" }, resourceVersion: sts.metadata.resourceVersion },
      },
      "merge",
    );
  }
  await kube.patch(
    keyOf(cluster),
    { metadata: { annotations: { [CLUSTER_ANNOTATIONS.replaceServer]: null } } },
    "merge",
  );
  return server;
}
