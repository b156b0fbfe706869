// A JetStream server leaving the cluster, one phase at a time: evacuate its Raft groups, move
// the meta leader off it, remove it from the meta group, then delete it (C33). Each phase is
// entered by a guarded status write before its request is sent, and every request is safe to
// send again, so a lost or duplicated delivery only delays a phase. The last phase, Deleting, is
// carried on the same way: until the server's StatefulSet and its claim are both gone, each
// delivery deletes what is left (finishDeletion).
import type { NatsClusterStatus } from "../../../shared/api/index.ts";
import type { Gate } from "./gate.ts";
import { describeUnsettled, judgeSettled, type Snapshot } from "./snapshot.ts";

/** How long a phase's request is given before it is sent again. */
export const RESEND_AFTER_MS = 30_000;

/** One entry of `status.removals`. */
export type Removal = NonNullable<NatsClusterStatus["removals"]>[number];
export type RemovalPhase = Removal["phase"];

/** A request to the NATS cluster, or the deletion of the server's objects. */
export type RemovalAction =
  | { kind: "evacuate"; server: string }
  | { kind: "stepdown"; server: string }
  | { kind: "remove-peer"; server: string }
  | { kind: "delete"; server: string; surplus: boolean }
  /** The claim a deletion left behind (its StatefulSet is gone), by the uid observed. */
  | { kind: "delete-claim"; server: string; uid: string; surplus: boolean };

export interface RemovalProgress {
  phase: RemovalPhase;
  /** Undefined while waiting. */
  action?: RemovalAction;
  /** What the removal waits for, while it waits. */
  gate?: Gate;
}

/** Raft groups other than the meta group that still have a member on `server`. */
export function groupsHeldBy(snapshot: Snapshot, server: string): string[] {
  return snapshot.groups
    .filter((g) => g.label !== "meta" && (g.leader === server || g.members.some((m) => m.name === server)))
    .map((g) => g.label);
}

/**
 * Raft groups of `server` that span every server of the roster (an R3 stream on three servers):
 * evacuation has nowhere to move them, and the server would take the evacuated server out of
 * their placement for good, so a server coming back under the same name would never get its copy
 * back.
 */
export function groupsWithNowhereToGo(snapshot: Snapshot, server: string): string[] {
  const roster = new Set(snapshot.roster);
  return snapshot.groups
    .filter((g) => g.label !== "meta" && g.members.some((m) => m.name === server))
    .filter((g) => [...roster].every((s) => g.members.some((m) => m.name === s)))
    .map((g) => g.label);
}

/** The largest replica count of any stream, with one stream that has it. */
export function widestStream(snapshot: Snapshot): { label: string; replicas: number } | undefined {
  let widest: { label: string; replicas: number } | undefined;
  for (const group of snapshot.groups) {
    if (!group.label.startsWith("stream ") || !group.selfReported) continue;
    if (!widest || group.members.length > widest.replicas)
      widest = { label: group.label.slice("stream ".length), replicas: group.members.length };
  }
  return widest;
}

const list = (labels: string[]) =>
  labels.length <= 3 ? labels.join(", ") : `${labels.slice(0, 3).join(", ")} and ${labels.length - 3} more`;

/**
 * The next move of a removal that has started (phase Evacuating or Removed). `since` is when the
 * phase began; a request is sent again once it has had RESEND_AFTER_MS without effect.
 */
export function advanceRemoval(
  removal: Removal,
  snapshot: Snapshot | undefined,
  surplus: boolean,
  now: Date,
): RemovalProgress {
  const server = removal.name;
  const stale = removal.since === undefined || now.getTime() - Date.parse(removal.since) >= RESEND_AFTER_MS;
  if (!snapshot)
    return { phase: removal.phase, gate: { waitingFor: "Settled", detail: "the NATS cluster is not observed" } };

  if (removal.phase === "Evacuating") {
    // A server replaced under its name whose groups have nowhere to go is not evacuated: it leaves
    // the meta group holding its copies, each group runs one copy short meanwhile, and the
    // server takes its copies back when it rejoins (the gate then waits for them to be current).
    const stays = !surplus && groupsWithNowhereToGo(snapshot, server).length > 0;
    const held = stays ? [] : groupsHeldBy(snapshot, server);
    const rest = judgeSettled(snapshot, server);
    if (held.length > 0) {
      const gate: Gate = {
        waitingFor: "Evacuated",
        detail: `${server} still holds ${held.length} Raft group${held.length === 1 ? "" : "s"}: ${list(held)}`,
      };
      // Nothing is moving, yet groups remain (a lost request, or a stream made meanwhile).
      return rest.settled && stale
        ? { phase: "Evacuating", action: { kind: "evacuate", server }, gate }
        : { phase: "Evacuating", gate };
    }
    if (!rest.settled) return { phase: "Evacuating", gate: { waitingFor: "Settled", detail: describeUnsettled(rest) } };
    if (snapshot.metaLeader === server) {
      return {
        phase: "Evacuating",
        action: { kind: "stepdown", server },
        gate: { waitingFor: "Evacuated", detail: `moving the meta leader off ${server}` },
      };
    }
    return { phase: "Removed", action: { kind: "remove-peer", server } };
  }

  // Removed: gone from the meta group as its leader sees it, then deleted.
  if (snapshot.metaMembers.includes(server)) {
    const gate: Gate = { waitingFor: "Removed", detail: `${server} is still in the meta group` };
    return stale ? { phase: "Removed", action: { kind: "remove-peer", server }, gate } : { phase: "Removed", gate };
  }
  return { phase: "Deleting", action: { kind: "delete", server, surplus } };
}

/** A server as finishDeletion needs it: whether its StatefulSet still stands, and whether it leaves. */
export interface DeletedServer {
  name: string;
  /** Its StatefulSet exists and is the one leaving (beyond replicas, or marked for replacement). */
  leaving: boolean;
  /** Beyond replicas: its ConfigMap goes too. */
  surplus: boolean;
}

/**
 * The next move of a server whose `Deleting` phase was claimed, level-triggered from what is
 * there now: its StatefulSet still standing (the delivery that claimed the phase died before
 * deleting it) is deleted again; gone, with the claim it left behind (it died between the two
 * deletes), the claim is deleted; both gone, undefined: the deletion is done, and what follows
 * (the replacement created, then Rejoining) is the rollout's as before.
 */
export function finishDeletion(
  removal: Removal,
  server: DeletedServer,
  claimLeft: { uid: string } | undefined,
): RemovalProgress | undefined {
  if (removal.phase !== "Deleting") return undefined;
  const { name, surplus } = server;
  if (server.leaving) return { phase: "Deleting", action: { kind: "delete", server: name, surplus } };
  if (claimLeft)
    return { phase: "Deleting", action: { kind: "delete-claim", server: name, uid: claimLeft.uid, surplus } };
  return undefined;
}
