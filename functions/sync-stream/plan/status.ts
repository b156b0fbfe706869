// The status a JetStream object shows after one reconcile, from what happened.
import { type Condition, type ConditionUpdate, setConditions } from "../../../shared/kube/index.ts";
import type { Origin } from "../config/marker.ts";
import type { TerminalReason } from "./plan.ts";
import { movingMessage, type ReplicaStatus, type TransferStatus } from "../jetstream/transfer.ts";
import { bytesToQuantity } from "../config/units.ts";

export interface ServerStatus {
  created?: string;
  leader?: string;
  replicas?: ReplicaStatus[];
  messages?: number;
  bytes?: string;
}

/** SyncStatus of shared/api plus the server view; kept local so this file reads alone. */
export interface ObjectStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  lastSyncedTime?: string;
  nextCheckTime?: string;
  ownership?: { origin?: Origin; uid?: string };
  server?: ServerStatus;
  transfer?: TransferStatus;
}

export type SyncResult =
  | {
      kind: "synced";
      what: string;
      origin: Origin;
      uid: string;
      drift: string[] | undefined;
      server: ServerStatus | undefined;
      /** The Raft group has no leader or a member that is not current (re-read every 15 s until it settles). */
      unsettled?: boolean;
      /** A move to another NATS cluster in progress. */
      transfer?: TransferStatus;
    }
  | { kind: "terminal"; reason: TerminalReason; message: string; nextCheck: Date | undefined }
  | { kind: "failed"; reason: "SyncFailed" | "ObserveFailed"; message: string }
  | {
      kind: "connection";
      reason: "ConnectionNotFound" | "ConnectionFailed" | "ReferenceNotPermitted";
      message: string;
      noGrant: boolean;
    }
  | { kind: "adoptWaiting"; message: string }
  | { kind: "streamWaiting"; reason: "StreamNotFound" | "StreamNotReady"; message: string };

const True = "True" as const;
const False = "False" as const;

function without(conditions: Condition[], ...types: string[]): Condition[] {
  return conditions.filter((c) => !types.includes(c.type));
}

/** The next status: previous fields kept unless this result says otherwise. */
export function nextStatus(
  previous: ObjectStatus | undefined,
  result: SyncResult,
  generation: number | undefined,
  now: Date,
): ObjectStatus {
  const base: ObjectStatus = { ...(previous ?? {}) };
  delete base.observedGeneration;
  const conditions = previous?.conditions ?? [];
  const at = (updates: Omit<ConditionUpdate, "observedGeneration">[], drop: string[]) =>
    setConditions(
      without(conditions, ...drop),
      updates.map((u) => ({ ...u, ...(generation === undefined ? {} : { observedGeneration: generation }) })),
      now,
    );

  switch (result.kind) {
    case "synced": {
      const synced =
        result.drift && result.drift.length > 0
          ? {
              type: "Synced",
              status: False,
              reason: "DriftCorrected",
              message: `reapplied spec over drift in ${result.drift.join(", ")}`,
            }
          : result.transfer
            ? { type: "Synced", status: False, reason: "Moving", message: movingMessage(result.transfer) }
            : {
                type: "Synced",
                status: True,
                reason: "MatchesSpec",
                message: "server config matches spec as of last check",
              };
      const updates = [{ type: "Ready", status: True, reason: "Synced", message: `${result.what} is in sync` }, synced];
      if (result.origin === "Adopted") {
        updates.push({
          type: "Adopted",
          status: True,
          reason: "FoundUnowned",
          message: `${result.what} existed without an ownership marker and was adopted`,
        });
      }
      const next: ObjectStatus = {
        ...base,
        conditions: at(updates, [
          "Terminal",
          "ReferencesResolved",
          ...(result.origin === "Adopted" ? [] : ["Adopted"]),
        ]),
        lastSyncedTime: now.toISOString().replace(/\.\d{3}Z$/, "Z"),
        ownership: { origin: result.origin, uid: result.uid },
      };
      delete next.nextCheckTime;
      if (result.server) next.server = result.server;
      if (result.transfer) next.transfer = result.transfer;
      else delete next.transfer;
      return next;
    }
    case "terminal": {
      const next: ObjectStatus = {
        ...base,
        conditions: at(
          [
            { type: "Ready", status: False, reason: "Terminal", message: result.message },
            { type: "Terminal", status: True, reason: result.reason, message: result.message },
          ],
          ["Synced", "ReferencesResolved"],
        ),
      };
      if (result.nextCheck) next.nextCheckTime = result.nextCheck.toISOString().replace(/\.\d{3}Z$/, "Z");
      else delete next.nextCheckTime;
      return next;
    }
    case "failed":
      return {
        ...base,
        conditions: at(
          [
            { type: "Ready", status: False, reason: result.reason, message: result.message },
            { type: "Synced", status: False, reason: "SyncFailed", message: result.message },
          ],
          ["Terminal"],
        ),
      };
    case "connection":
      return {
        ...base,
        conditions: at(
          [
            { type: "Ready", status: False, reason: result.reason, message: result.message },
            ...(result.noGrant
              ? [{ type: "ReferencesResolved", status: False, reason: "NoGrant", message: result.message }]
              : []),
          ],
          result.noGrant ? [] : ["ReferencesResolved"],
        ),
      };
    case "adoptWaiting":
      return {
        ...base,
        conditions: at(
          [
            { type: "Ready", status: False, reason: "NotFound", message: result.message },
            { type: "Adopted", status: False, reason: "NotFound", message: result.message },
          ],
          ["Terminal"],
        ),
      };
    case "streamWaiting":
      return {
        ...base,
        conditions: at(
          [{ type: "Ready", status: False, reason: result.reason, message: result.message }],
          ["Terminal"],
        ),
      };
  }
}

/** A replicated object whose Raft group has no leader yet or a member that is not current. */
export function isUnsettled(info: Record<string, unknown>): boolean {
  const cluster = info.cluster as { leader?: string; replicas?: { current?: boolean }[] } | undefined;
  if (cluster === undefined) return false; // a server outside any cluster: nothing to settle
  return !cluster.leader || (cluster.replicas ?? []).some((r) => r.current !== true);
}

/** The server's view from a stream or consumer info reply. */
export function serverStatusOf(info: Record<string, unknown>, withState: boolean): ServerStatus {
  const status: ServerStatus = {};
  if (typeof info.created === "string") status.created = info.created.replace(/\.\d+Z$/, "Z");
  const cluster = info.cluster as
    { leader?: string; replicas?: { name: string; current?: boolean; lag?: number }[] } | undefined;
  if (cluster?.leader) status.leader = cluster.leader;
  // Present (maybe empty) for any object of a clustered server, so an unsettled group can be told from a lone server.
  if (cluster) {
    status.replicas = (cluster.replicas ?? []).map((r) => ({
      name: r.name,
      current: r.current === true,
      ...(r.lag ? { lag: r.lag } : {}),
    }));
  }
  if (withState) {
    const state = info.state as { messages?: number; bytes?: number } | undefined;
    if (state?.messages) status.messages = state.messages;
    status.bytes = bytesToQuantity(state?.bytes ?? 0);
  }
  return status;
}
