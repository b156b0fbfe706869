// Carries one server's reload a step further (C15). Every write is guarded by the
// resourceVersion read in this delivery and every request may be repeated, so duplicated or
// concurrent deliveries do no harm: a conflict only leaves the work to a later tick.
import type { NatsConnection } from "@nats-io/transport-node";
import { RENDERED_ANNOTATIONS } from "../../../shared/api/index.ts";
import { guarded, keyOf, type Kube } from "../../../shared/kube/index.ts";
import { CONFIG_KEY, type PlannedServer } from "../../cluster/index.ts";
import { judgeReload, type ConfigApply } from "./decision.ts";
import type { ConfigMap, StatefulSet } from "../nats-cluster/types.ts";
import { NatsApiError } from "../../../shared/nats/index.ts";
import { loadedConfig, reloadServer } from "./server-api.ts";

export type ReloadOutcome =
  { kind: "confirmed" } | { kind: "pending"; detail: string } | { kind: "failed"; reason: string };

export interface ReloadingServer {
  planned: PlannedServer;
  configMap: ConfigMap;
  statefulSet: StatefulSet;
  /** From the server's VARZ; absent while it is silent. */
  serverId?: string;
}

export type ReloadStep = Extract<
  ConfigApply,
  { kind: "start-reload" | "confirm-reload" | "reloaded" | "reload-failed" }
>;

/** A write guarded by the resourceVersion read: false when the object changed meanwhile. */
const held = async (write: () => Promise<unknown>): Promise<boolean> => (await guarded(write)).kind === "written";

const rfc3339 = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, "Z");

/** The new config into the ConfigMap, marked Reload since now; the kubelet delivers it to the pod. */
function askForReload(kube: Kube, target: string, server: ReloadingServer, now: Date): Promise<boolean> {
  const annotations = {
    [RENDERED_ANNOTATIONS.configRevision]: target,
    [RENDERED_ANNOTATIONS.configApply]: "Reload",
    [RENDERED_ANNOTATIONS.reloadSince]: rfc3339(now),
    [RENDERED_ANNOTATIONS.restartReason]: null,
  };
  const patch = {
    metadata: { resourceVersion: server.configMap.metadata.resourceVersion, annotations },
    data: { [CONFIG_KEY]: server.planned.config },
  };
  return held(() => kube.patch(keyOf(server.configMap), patch, "merge"));
}

/** The StatefulSet now runs the target revision; its pod template is left alone, so nothing restarts. */
function recordReloaded(kube: Kube, target: string, server: ReloadingServer): Promise<boolean> {
  const patch = {
    metadata: {
      resourceVersion: server.statefulSet.metadata.resourceVersion,
      annotations: { [RENDERED_ANNOTATIONS.configRevision]: target },
    },
  };
  return held(() => kube.patch(keyOf(server.statefulSet), patch, "merge"));
}

/** Marks the ConfigMap Restart with the reason; the rollout then restarts the server in its turn. */
function giveUp(kube: Kube, server: ReloadingServer, reason: string): Promise<boolean> {
  const annotations = {
    [RENDERED_ANNOTATIONS.configApply]: "Restart",
    [RENDERED_ANNOTATIONS.restartReason]: reason,
    [RENDERED_ANNOTATIONS.reloadSince]: null,
  };
  return held(() =>
    kube.patch(
      keyOf(server.configMap),
      { metadata: { resourceVersion: server.configMap.metadata.resourceVersion, annotations } },
      "merge",
    ),
  );
}

/** Asks the server what it has loaded, reloads it when it is not on the target, and judges the answer. */
async function confirm(nc: NatsConnection, target: string, serverId: string): Promise<ReloadOutcome> {
  const before = await loadedConfig(nc, serverId);
  if (before.revision === target) return { kind: "confirmed" };
  await reloadServer(nc, serverId);
  const after = await loadedConfig(nc, serverId);
  const verdict = judgeReload(target, { before, after });
  return verdict.confirmed ? { kind: "confirmed" } : { kind: "pending", detail: verdict.detail };
}

export async function carryReload(
  kube: Kube,
  connect: () => Promise<NatsConnection>,
  target: string,
  server: ReloadingServer,
  step: ReloadStep,
  now: Date,
): Promise<ReloadOutcome> {
  const changed: ReloadOutcome = {
    kind: "pending",
    detail: "it changed while being reloaded; asked again on the next tick",
  };
  switch (step.kind) {
    case "start-reload":
      return (await askForReload(kube, target, server, now))
        ? { kind: "pending", detail: "its new config is written; waiting for the kubelet to deliver it" }
        : changed;
    case "reload-failed":
      return (await giveUp(kube, server, step.reason)) ? { kind: "failed", reason: step.reason } : changed;
    case "reloaded":
      return (await recordReloaded(kube, target, server)) ? { kind: "confirmed" } : changed;
    case "confirm-reload": {
      if (server.serverId === undefined) return { kind: "pending", detail: "it does not answer" };
      let outcome: ReloadOutcome;
      try {
        outcome = await confirm(await connect(), target, server.serverId);
      } catch (error) {
        if (error instanceof NatsApiError) {
          const reason = `reload failed: ${error.message}`;
          return (await giveUp(kube, server, reason)) ? { kind: "failed", reason } : changed;
        }
        // No answer (or no connection) is not a rejection: the window bounds how long it is asked.
        if (error instanceof Error) return { kind: "pending", detail: `no answer: ${error.message}` };
        throw error;
      }
      if (outcome.kind !== "confirmed") return outcome;
      return (await recordReloaded(kube, target, server)) ? outcome : changed;
    }
  }
}
