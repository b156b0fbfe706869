// Carrying out a decision: the status write that claims it, then the finalizer, the replace
// request, the reloads, the one rollout step (restart a server by writing its ConfigMap and its
// StatefulSet's pod template, delete a leaving server, or ask the NATS cluster to let it go),
// the Events and the one-shot annotations.
import {
  CLUSTER_ANNOTATIONS,
  FIELD_MANAGERS,
  FINALIZERS,
  type NatsClusterStatus,
  REMOVAL_ANNOTATION,
  RENDERED_ANNOTATIONS,
  VOLUME_DIGEST_ANNOTATION,
} from "../../../shared/api/index.ts";
import {
  addFinalizer,
  type EventRecorder,
  guarded,
  isControlledBy,
  keyOf,
  type Kube,
  removeFinalizer,
  writeStatus,
} from "../../../shared/kube/index.ts";
import { claimName, type Cluster, configMapName, isServerClaim, type PlannedServer } from "../../cluster/index.ts";
import type { ReloadAction } from "../reload/changes.ts";
import type { Decision, RolloutStepDecision, Observed, StatefulSet } from "./types.ts";
import { carryReload } from "../reload/carry.ts";
import { sendRemovalRequest, systemConnection } from "../servers/system-user.ts";

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

const claimKey = (cluster: Cluster, server: string) => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  namespace: cluster.metadata.namespace,
  name: claimName(server),
});

/** Beyond replicas, the server's ConfigMap goes too, when we control it. */
async function deleteConfigMap(kube: Kube, cluster: Cluster, server: string): Promise<void> {
  const key = {
    apiVersion: "v1",
    kind: "ConfigMap",
    namespace: cluster.metadata.namespace,
    name: configMapName(server),
  };
  const configMap = await kube.get(key);
  if (configMap && isControlledBy(configMap, cluster))
    await kube.delete(key, { ...(configMap.metadata.uid ? { preconditions: { uid: configMap.metadata.uid } } : {}) });
}

/**
 * Deletes a server leaving the cluster: its StatefulSet (the one observed, by its uid, when
 * given); its data claim only when it carries the server's labels (a claim someone else made is
 * theirs); and, beyond replicas, its ConfigMap when we control it. The `Deleting` phase claimed
 * before it is carried on by the next delivery if this one dies half-way (rollout/removal.ts,
 * finishDeletion).
 */
export async function deleteServer(
  kube: Kube,
  cluster: Cluster,
  server: string,
  surplus: boolean,
  uid?: string,
): Promise<void> {
  await kube.delete(
    { apiVersion: "apps/v1", kind: "StatefulSet", namespace: cluster.metadata.namespace, name: server },
    { propagationPolicy: "Background", ...(uid ? { preconditions: { uid } } : {}) },
  );
  const claim = await kube.get(claimKey(cluster, server));
  if (claim && isServerClaim(cluster.metadata.name, server, claim)) {
    await kube.delete(claimKey(cluster, server), {
      ...(claim.metadata.uid ? { preconditions: { uid: claim.metadata.uid } } : {}),
    });
  }
  if (surplus) await deleteConfigMap(kube, cluster, server);
}

/** Deletes the claim a server's deletion left behind: the one observed, by its uid. */
export async function deleteClaimLeft(
  kube: Kube,
  cluster: Cluster,
  server: string,
  uid: string,
  surplus: boolean,
): Promise<void> {
  await kube.delete(claimKey(cluster, server), { preconditions: { uid } });
  if (surplus) await deleteConfigMap(kube, cluster, server);
}

/** Clears a one-shot annotation (force-step, restart-all, replace-server) once it has been acted on. */
async function clearAnnotation(kube: Kube, cluster: Cluster, annotation: string): Promise<void> {
  await kube.patch(keyOf(cluster), { metadata: { annotations: { [annotation]: null } } }, "merge");
}

/**
 * Takes the one-shot replace-server request: marks the named server's StatefulSet `Requested`
 * (unless it already carries a removal phase), so the request outlives the annotation, then
 * clears the annotation.
 */
async function takeReplaceRequest(kube: Kube, cluster: Cluster, statefulSet: StatefulSet | undefined): Promise<void> {
  if (statefulSet && statefulSet.metadata.annotations?.[REMOVAL_ANNOTATION] === undefined) {
    const marked = await guarded(() =>
      kube.patch(
        keyOf(statefulSet),
        {
          metadata: {
            annotations: { [REMOVAL_ANNOTATION]: "Requested" },
            resourceVersion: statefulSet.metadata.resourceVersion,
          },
        },
        "merge",
      ),
    );
    // Someone changed it meanwhile: the annotation stays for the next delivery.
    if (marked.kind === "conflict") return;
  }
  await clearAnnotation(kube, cluster, CLUSTER_ANNOTATIONS.replaceServer);
}

/** Carries every reload of the decision a step further, all at once. */
async function carryReloads(kube: Kube, observed: Observed, reloads: readonly ReloadAction[], now: Date) {
  const { cluster, systemUser } = observed;
  const connect = () =>
    systemUser.kind === "ready" ? systemConnection(cluster, systemUser) : Promise.reject(new Error("no system user"));
  await Promise.all(
    reloads.map(async ({ server, step }) => {
      const planned = observed.plan.servers.find((p) => p.name === server);
      const configMap = observed.configMaps.get(configMapName(server));
      const statefulSet = observed.statefulSets.get(server);
      if (!planned || !configMap || !statefulSet) return;
      const report = observed.reports.find((r) => r.server === server);
      const serverId = report?.varz?.server_name === server ? report.varz.server_id : undefined;
      await carryReload(
        kube,
        connect,
        observed.plan.revision,
        { planned, configMap, statefulSet, ...(serverId ? { serverId } : {}) },
        step,
        now,
      );
    }),
  );
}

async function takeStep(kube: Kube, observed: Observed, decision: RolloutStepDecision): Promise<void> {
  const { cluster, systemUser } = observed;
  const step = decision.step;
  const restart = async (server: string) => {
    const planned = observed.plan.servers.find((s) => s.name === server);
    const reason = decision.servers.find((s) => s.name === server)?.restartReason;
    if (planned) await restartServer(kube, planned, reason);
  };
  if (step.kind === "restart") await restart(step.server);
  else if (step.kind === "restart-all") await Promise.all(step.servers.map(restart));
  else if (step.kind === "delete")
    await deleteServer(kube, cluster, step.server, step.surplus, observed.statefulSets.get(step.server)?.metadata.uid);
  else if (step.kind === "delete-claim") await deleteClaimLeft(kube, cluster, step.server, step.uid, step.surplus);
  else if (step.kind !== "none" && systemUser.kind === "ready") await sendRemovalRequest(cluster, systemUser, step);
}

/** Whether the decision was carried out, or another delivery's status write claimed it first. */
export type ClaimOutcome = { kind: "done" } | { kind: "conflict" };

/**
 * Acts on a decision. The status write comes first and is guarded by the resourceVersion the
 * decision was made from: of concurrent deliveries only one gets past it, so reloads, the step
 * and the Events happen once per decision.
 */
export async function act(
  kube: Kube,
  recorder: EventRecorder,
  observed: Observed,
  decision: Decision,
  now: Date,
): Promise<ClaimOutcome> {
  let cluster = observed.cluster;
  if (decision.kind === "finalize") {
    if (decision.release) {
      await removeFinalizer(kube, cluster, FINALIZERS.jetstreamData);
      return { kind: "done" };
    }
    return (await claimStatus(kube, cluster, decision.status)) ? { kind: "done" } : { kind: "conflict" };
  }
  if (decision.finalizer) {
    const change = decision.finalizer === "add" ? addFinalizer : removeFinalizer;
    const written = await guarded(() => change(kube, cluster, FINALIZERS.jetstreamData));
    if (written.kind === "conflict") return { kind: "conflict" };
    cluster = written.value;
  }
  if (!(await claimStatus(kube, cluster, decision.status))) return { kind: "conflict" };
  if (decision.replaceRequest) {
    const server = decision.replaceRequest.server;
    await takeReplaceRequest(kube, cluster, server !== undefined ? observed.statefulSets.get(server) : undefined);
  }
  await carryReloads(kube, observed, decision.reloads, now);
  await takeStep(kube, observed, decision);
  for (const event of decision.events) await recorder.record(cluster, event.type, event.reason, event.note);
  for (const annotation of decision.clear) await clearAnnotation(kube, cluster, annotation);
  return { kind: "done" };
}

/** Writes the whole status guarded by the resourceVersion read; false when someone wrote first. */
async function claimStatus(kube: Kube, cluster: Cluster, status: NatsClusterStatus): Promise<boolean> {
  return (await writeStatus(kube, cluster, status, FIELD_MANAGER, { whole: true })).kind !== "conflict";
}
