// The status a JetStream object shows after one reconcile, from what happened.
import type { ClusterInfo, StreamState } from "@nats-io/jetstream";
import { type Condition, type ConditionUpdate, jsonEqual, setConditions } from "../../../shared/kube/index.ts";
import type { Origin } from "../config/marker.ts";
import type { TerminalReason } from "./plan.ts";
import { movingMessage, type ReplicaStatus, type TransferStatus } from "../jetstream/transfer.ts";
import { bytesToQuantity } from "../config/units.ts";
import { GRANT_REASONS, JETSTREAM_REASONS } from "../../../shared/api/index.ts";

export interface ServerStatus {
  created?: string;
  leader?: string;
  replicas?: ReplicaStatus[];
  /** Members of the Raft group that are current, the leader included. */
  currentReplicas?: number;
  messages?: number;
  bytes?: string;
  lastSequence?: number;
}

/** A NatsStream's stream found missing on the server, and what status showed of it before. */
export interface LostRecord {
  at: string;
  lastKnown: { messages?: number; bytes?: string; lastSequence?: number };
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
  /** NatsStream only: the last time its stream was found missing on the server. */
  lost?: LostRecord;
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
  /** A stream gone on the server, held (spec.onLoss Hold) instead of recreated. */
  | { kind: "lost"; message: string }
  | { kind: "streamWaiting"; reason: "StreamNotFound" | "StreamNotReady"; message: string };

/** A condition of this status; the observed generation is added to every one. */
type Update = Omit<ConditionUpdate, "observedGeneration">;

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
  const at = (updates: Update[], drop: string[]) =>
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
              reason: JETSTREAM_REASONS.DriftCorrected,
              message: `reapplied spec over drift in ${result.drift.join(", ")}`,
            }
          : // Moving between NATS clusters: Ready stays True, Synced (J18, J21).
            result.transfer
            ? {
                type: "Synced",
                status: False,
                reason: JETSTREAM_REASONS.Moving,
                message: movingMessage(result.transfer),
              }
            : {
                type: "Synced",
                status: True,
                reason: JETSTREAM_REASONS.MatchesSpec,
                message: "server config matches spec as of last check",
              };
      const updates: Update[] = [
        { type: "Ready", status: True, reason: JETSTREAM_REASONS.Synced, message: `${result.what} is in sync` },
        synced,
      ];
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
              ? [{ type: "ReferencesResolved", status: False, reason: GRANT_REASONS.NoGrant, message: result.message }]
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
    case "lost":
      return {
        ...base,
        conditions: at(
          [
            { type: "Ready", status: False, reason: JETSTREAM_REASONS.StreamLost, message: result.message },
            { type: "Synced", status: False, reason: JETSTREAM_REASONS.StreamLost, message: result.message },
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
  const cluster = info.cluster as ClusterInfo | undefined;
  if (cluster === undefined) return false; // a server outside any cluster: nothing to settle
  return !cluster.leader || (cluster.replicas ?? []).some((r) => r.current !== true);
}

/** The server's view from a stream or consumer info reply. */
export function serverStatusOf(info: Record<string, unknown>, withState: boolean): ServerStatus {
  const status: ServerStatus = {};
  if (typeof info.created === "string") status.created = info.created.replace(/\.\d+Z$/, "Z");
  const cluster = info.cluster as ClusterInfo | undefined;
  if (cluster?.leader) status.leader = cluster.leader;
  // Present (maybe empty) for any object of a clustered server, so an unsettled group can be told from a lone server.
  if (cluster) {
    status.replicas = (cluster.replicas ?? []).map((r) => ({
      name: r.name,
      current: r.current === true,
      ...(r.lag ? { lag: r.lag } : {}),
    }));
    // A printer column cannot count a list: the count is written for `kubectl get`.
    status.currentReplicas = (cluster.leader ? 1 : 0) + status.replicas.filter((r) => r.current).length;
  }
  if (withState) {
    const state = info.state as StreamState | undefined;
    if (state?.messages) status.messages = state.messages;
    status.bytes = bytesToQuantity(state?.bytes ?? 0);
    if (state?.last_seq) status.lastSequence = state.last_seq;
  }
  return status;
}

/**
 * `next` with the previous `lastSyncedTime` kept when the check changed nothing else in status and
 * that time is less than `cadenceMs` old: a drift check that finds everything as it was writes
 * nothing (most of an idle installation's API writes were that time, every tick, on every stream),
 * and the time still moves once per `cadenceMs` and whenever anything else does.
 */
export function quietSyncTime(
  previous: ObjectStatus | undefined,
  next: ObjectStatus,
  now: Date,
  cadenceMs: number,
): ObjectStatus {
  const recorded = previous?.lastSyncedTime;
  if (!recorded || !next.lastSyncedTime || now.getTime() - Date.parse(recorded) >= cadenceMs) return next;
  const kept = { ...next, lastSyncedTime: recorded };
  const { inputs: _inputs, ...shown } = (previous ?? {}) as ObjectStatus & { inputs?: unknown };
  return jsonEqual(shown, kept) ? kept : next;
}
