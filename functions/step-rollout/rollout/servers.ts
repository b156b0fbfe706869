// The servers as the rollout sees them, derived from what observe.ts read: which exist, which
// run the target revision, why the others must restart, why a pod does not come up, and what
// each reports of itself.
import {
  CLUSTER_ANNOTATIONS,
  REMOVAL_ANNOTATION,
  RENDERED_ANNOTATIONS,
  VOLUME_DIGEST_ANNOTATION,
} from "../../../shared/api/index.ts";
import { CONFIG_KEY, configMapName, ordinalOf, runsStandaloneJetStream } from "../../cluster/index.ts";
import { authChange } from "./auth-change.ts";
import type { Observed, StatefulSet } from "../nats-cluster/types.ts";
import type { ServerInput } from "./types.ts";
import { restartReason } from "../reload/restart-reason.ts";
import { podFailure } from "./pod-failure.ts";
import { mergeSnapshot, type Snapshot } from "./snapshot.ts";

function runningVersion(sts: StatefulSet): string | undefined {
  const image = sts.spec.template.spec.containers?.find((c) => c.name === "nats")?.image ?? "";
  const match = /:([^:@/]+)(@|$)/.exec(image);
  return match?.[1];
}

/** The NATS cluster as the servers that exist report it; undefined when none answered usefully. */
export function snapshotOf(observed: Observed): Snapshot | undefined {
  const spec = observed.cluster.spec;
  const jetstream = !spec.jetstream ? "none" : runsStandaloneJetStream(spec) ? "standalone" : "clustered";
  return mergeSnapshot([...observed.statefulSets.keys()], observed.reports, jetstream, observed.metaLeader);
}

/** Every server planned or still existing, lowest ordinal first. */
export function serverInputs(observed: Observed): ServerInput[] {
  const { cluster, plan, hold, statefulSets, configMaps, pods, failedCreates, reports } = observed;
  const name = cluster.metadata.name;
  const roster = [...new Set([...plan.servers.map((s) => s.name), ...statefulSets.keys()])].sort(
    (a, b) => (ordinalOf(name, a) ?? 0) - (ordinalOf(name, b) ?? 0),
  );
  // replace-server names a server that is then handled as if its StatefulSet were marked already.
  const replaceRequested = cluster.metadata.annotations?.[CLUSTER_ANNOTATIONS.replaceServer];
  return roster.map((server): ServerInput => {
    const planned = plan.servers.find((p) => p.name === server);
    const sts = statefulSets.get(server);
    const report = reports.find((r) => r.server === server);
    const annotations = sts?.metadata.annotations ?? {};
    // Held, a server stays where it is: there is no revision to move it to.
    const onTarget = hold !== undefined || annotations[RENDERED_ANNOTATIONS.configRevision] === plan.revision;
    const input: ServerInput = {
      name: server,
      ordinal: ordinalOf(name, server) ?? 0,
      planned: planned !== undefined,
      exists: sts !== undefined,
      onTarget: sts !== undefined && onTarget,
      podReady: sts !== undefined && podReady(sts),
    };
    const failure =
      sts && planned && !input.podReady ? podFailure(pods.get(server), failedCreates.get(server)) : undefined;
    if (failure) input.failure = failure;
    const runningConfig = configMaps.get(configMapName(server))?.data?.[CONFIG_KEY];
    if (sts && planned && !onTarget) {
      const version = runningVersion(sts);
      const specDigest = annotations[RENDERED_ANNOTATIONS.specDigest];
      input.restartReason = restartReason(
        {
          ...(specDigest ? { specDigest } : {}),
          ...(version ? { runningVersion: version } : {}),
          ...(runningConfig !== undefined ? { runningConfig } : {}),
        },
        { specDigest: planned.specDigest, version: cluster.spec.version, config: planned.config },
      );
    }
    const change =
      sts && planned && !hold && runningConfig !== undefined ? authChange(runningConfig, planned.config) : undefined;
    if (change) input.authChange = change;
    const volumeDigest = annotations[VOLUME_DIGEST_ANNOTATION];
    if (sts && planned && volumeDigest !== undefined && volumeDigest !== planned.volumeDigest) input.replace = true;
    const requested =
      annotations[REMOVAL_ANNOTATION] === "Requested" ||
      (replaceRequested === server && annotations[REMOVAL_ANNOTATION] === undefined);
    if (sts && planned && requested) input.replace = true;
    const revision = report?.varz?.server_name === server ? report.varz.metadata?.["config_revision"] : undefined;
    if (revision) input.reportedRevision = revision;
    if (report?.varz?.server_name === server && report.varz.version) input.reportedVersion = report.varz.version;
    return input;
  });
}

/** The server's pod runs the StatefulSet's current generation and is Ready. */
export function podReady(sts: StatefulSet): boolean {
  const status = sts.status ?? {};
  return (
    (status.observedGeneration ?? 0) >= (sts.metadata.generation ?? 0) &&
    (status.updatedReplicas ?? 0) > 0 &&
    (status.readyReplicas ?? 0) > 0
  );
}
