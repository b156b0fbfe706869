// The rollout state machine: from what is observed now (and the little status keeps),
// the next step to take, if any, and the status and conditions that describe it.
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import type { AuthChange } from "./auth-change.ts";
import { evaluateGate, type Gate, type WaitingFor } from "./gate.ts";
import {
  advanceRemoval,
  finishDeletion,
  groupsWithNowhereToGo,
  widestStream,
  type Removal,
  type RemovalProgress,
} from "./removal.ts";
import { ready, settledCondition, withLeftovers } from "./conditions.ts";
import type { RolloutDecision, RolloutInput, RolloutStatus, ServerInput, Step } from "./types.ts";
import {
  type Reason,
  CLUSTER_ANNOTATIONS,
  CLUSTER_REASONS,
  RESTART_ALL_DISCARD_DATA,
} from "../../../shared/api/index.ts";

export const GATE_BLOCKED_AFTER_MS = 10 * 60 * 1000;

const byOrdinalDescending = (a: ServerInput, b: ServerInput) => b.ordinal - a.ordinal;

/** Highest ordinal first, the meta leader's server last. */
function stepOrder(servers: ServerInput[], metaLeader: string | undefined): string[] {
  const sorted = [...servers].sort(byOrdinalDescending).map((s) => s.name);
  return metaLeader && sorted.includes(metaLeader) ? [...sorted.filter((s) => s !== metaLeader), metaLeader] : sorted;
}

const verbFor = (kind: "surplus" | "restart" | "replace") =>
  kind === "surplus" ? "removing" : kind === "restart" ? "restarting" : "replacing";

function describeStep(step: Exclude<Step, { kind: "none" }>): string {
  switch (step.kind) {
    case "restart":
      return `restarting ${step.server}${step.forced ? " (forced)" : ""}`;
    case "restart-all":
      return `restarting ${step.servers.join(", ")} at once: auth ${step.change}`;
    case "evacuate":
      return `evacuating ${step.server}`;
    case "stepdown":
      return `moving the meta leader off ${step.server}`;
    case "remove-peer":
      return `removing ${step.server} from the meta group`;
    case "delete":
      return `removing ${step.server}`;
    case "delete-claim":
      return `deleting the claim ${step.server} left behind`;
  }
}

/**
 * What keeps the rollout from its next step for good, until a person acts: auth added or removed
 * (restart-all), JetStream servers that cannot be evacuated, a stream wider than what would remain.
 */
function blockedBy(
  input: RolloutInput,
  facts: {
    authBlocked: boolean;
    authChange: AuthChange | undefined;
    ephemeralHeld: boolean;
    surplus: readonly ServerInput[];
    replacements: readonly ServerInput[];
    widest: { label: string; replicas: number } | undefined;
    inFlight: Removal | undefined;
  },
): { reason: Reason; message: string } | undefined {
  const { authChange, surplus, replacements, widest } = facts;
  const cannotEvacuate = input.evacuationUnavailable ?? "evacuation needs auth.systemCredentials";
  const names = (servers: readonly ServerInput[]) => servers.map((s) => s.name).join(", ");
  if (facts.ephemeralHeld)
    return {
      reason: "EphemeralRestartAllBlocked",
      message:
        `restart-all would restart every server at once on ephemeral JetStream storage (jetstream.storage: ` +
        `Ephemeral): every server's JetStream data, every stream and consumer, would be lost at once. To keep ` +
        `it, move the streams to another cluster first; to accept the loss, set ${CLUSTER_ANNOTATIONS.restartAll} ` +
        `to ${RESTART_ALL_DISCARD_DATA}`,
    };
  if (facts.authBlocked)
    return {
      reason: "AuthChangeBlocked",
      message: `auth ${authChange === "added" ? "added to" : "removed from"} running servers needs every server restarted at once: annotate the NatsCluster with cluster.nats-operator.io/restart-all, or recreate it`,
    };
  if (input.jetstream && !input.canEvacuate && surplus.length > 0)
    return { reason: "ScaleDownBlocked", message: `cannot evacuate ${names(surplus)}: ${cannotEvacuate}` };
  if (input.jetstream && !input.canEvacuate && replacements.length > 0)
    return { reason: "ReplacementBlocked", message: `cannot evacuate ${names(replacements)}: ${cannotEvacuate}` };
  if (widest && widest.replicas > input.replicas && !facts.inFlight)
    return {
      reason: "ScaleDownBlocked",
      message: `stream ${widest.label} has ${widest.replicas} replicas, more than the ${input.replicas} servers that would remain`,
    };
  return undefined;
}

export function decideRollout(input: RolloutInput): RolloutDecision {
  const { servers, snapshot, targetRevision: target, now } = input;
  const metaLeader = snapshot?.metaLeader;
  const surplus = servers.filter((s) => !s.planned && s.exists);
  const replacements = servers.filter((s) => s.planned && s.exists && s.replace === true);
  const restarts = servers.filter(
    (s) => s.planned && s.exists && !s.onTarget && s.replace !== true && s.reloading !== true,
  );
  const kindOf = new Map<string, "surplus" | "restart" | "replace">();
  surplus.forEach((s) => kindOf.set(s.name, "surplus"));
  restarts.forEach((s) => kindOf.set(s.name, "restart"));
  replacements.forEach((s) => kindOf.set(s.name, "replace"));
  const ordered = [
    ...[...surplus].sort(byOrdinalDescending).map((s) => s.name),
    ...stepOrder(restarts, metaLeader),
    ...stepOrder(replacements, metaLeader),
  ];

  const gate = evaluateGate(servers, snapshot, input.jetstream, target);
  const previous = input.previous?.targetRevision === target ? input.previous : undefined;
  const previousCurrent = previous?.current ? servers.find((s) => s.name === previous.current) : undefined;
  const settling =
    gate !== undefined &&
    previous?.current !== undefined &&
    (previousCurrent === undefined || !previousCurrent.exists || previousCurrent.onTarget);
  let current = settling ? previous?.current : undefined;

  // JetStream servers leave by evacuation, which needs the system user; without JetStream they
  // are simply deleted.
  const evacuates = input.jetstream && input.canEvacuate;
  const leaving = (name: string) => kindOf.get(name) === "surplus" || kindOf.get(name) === "replace";
  // A claimed Deleting phase is carried on until the server's StatefulSet and its old claim are gone.
  let finishing: { removal: Removal; progress: RemovalProgress } | undefined;
  for (const removal of input.previousRemovals ?? []) {
    const server = servers.find((s) => s.name === removal.name);
    const claimLeft = input.claimsLeft?.find((c) => c.server === removal.name);
    const next = finishDeletion(
      removal,
      { name: removal.name, leaving: leaving(removal.name), surplus: server?.planned !== true },
      claimLeft,
    );
    if (next) {
      finishing = { removal, progress: next };
      break;
    }
  }
  const inFlight = finishing
    ? finishing.removal
    : evacuates
      ? input.previousRemovals?.find((r) => (r.phase === "Evacuating" || r.phase === "Removed") && leaving(r.name))
      : undefined;
  const widest = evacuates && surplus.length > 0 && snapshot ? widestStream(snapshot) : undefined;

  const authChange = restarts.find((s) => s.authChange !== undefined)?.authChange;
  // restart-all on emptyDir stores empties them all at once: held unless the loss is accepted.
  const ephemeralHeld =
    authChange !== undefined &&
    input.restartAll === true &&
    input.jetstream &&
    input.ephemeralJetStream === true &&
    input.restartAllDiscardsData !== true;
  const authBlocked = authChange !== undefined && (input.restartAll !== true || ephemeralHeld);
  const blocked = blockedBy(input, {
    authBlocked,
    authChange,
    ephemeralHeld,
    surplus,
    replacements,
    widest,
    inFlight,
  });

  let step: Step = { kind: "none" };
  let progress: RemovalProgress | undefined;
  /** The server whose removal this delivery starts. */
  let starting: string | undefined;
  const forced =
    input.forceStep !== undefined && restarts.some((s) => s.name === input.forceStep) ? input.forceStep : undefined;
  if (inFlight) {
    // A removal under way is carried through its phases before anything else moves.
    progress = finishing
      ? finishing.progress
      : advanceRemoval(inFlight, snapshot, kindOf.get(inFlight.name) === "surplus", now);
    current = inFlight.name;
    if (progress.action && !input.hold) step = progress.action;
  } else if (authChange !== undefined && !authBlocked && !input.hold) {
    step = { kind: "restart-all", servers: restarts.map((s) => s.name), change: authChange };
  } else if (forced !== undefined && !authBlocked && !input.hold)
    step = { kind: "restart", server: forced, forced: true };
  else if (!gate && !input.paused && !blocked && !input.hold && ordered.length > 0) {
    const next = ordered[0] ?? "";
    const surplusNext = kindOf.get(next) === "surplus";
    if (kindOf.get(next) === "restart") step = { kind: "restart", server: next, forced: false };
    else if (!evacuates) step = { kind: "delete", server: next, surplus: surplusNext };
    else if (surplusNext || !snapshot || groupsWithNowhereToGo(snapshot, next).length === 0)
      step = { kind: "evacuate", server: next };
    else {
      // Replaced, with groups that have nowhere to go: not evacuated (see removal.ts), its first
      // request moves the meta leader off it or takes it out of the meta group.
      const start = advanceRemoval({ name: next, phase: "Evacuating" }, snapshot, false, now);
      if (start.action) {
        progress = start;
        starting = next;
        step = start.action;
      }
    }
  }
  if (step.kind !== "none" && step.kind !== "restart-all") current = step.server;
  // A request sent again within its phase is not news (the claim a deletion left behind is).
  const resent =
    inFlight !== undefined &&
    progress?.phase === inFlight.phase &&
    step.kind !== "stepdown" &&
    step.kind !== "delete-claim";

  const pending = step.kind === "restart-all" ? [] : ordered.filter((s) => s !== current);
  const updated = servers
    .filter((s) => s.planned && s.exists && s.onTarget && s.name !== current && !kindOf.has(s.name))
    .map((s) => s.name);
  const effectiveGate: Gate | undefined =
    progress?.gate ??
    (step.kind === "restart-all"
      ? { waitingFor: "Settled", detail: "every server is restarting" }
      : step.kind !== "none"
        ? {
            waitingFor: "Settled",
            detail: `${step.server} is ${step.kind === "restart" ? "restarting" : "being removed"}`,
          }
        : gate);
  const active = current !== undefined || pending.length > 0 || step.kind === "restart-all";
  const holding = step.kind === "none" || resent;
  const since = effectiveGate
    ? holding && input.previous?.gate?.since && previous
      ? input.previous.gate.since
      : now.toISOString()
    : undefined;

  const rollout: RolloutStatus | undefined = active
    ? {
        targetRevision: target,
        ...(updated.length > 0 ? { updated } : {}),
        ...(current !== undefined ? { current } : {}),
        ...(pending.length > 0 ? { pending } : {}),
        ...(effectiveGate && since ? { gate: { waitingFor: effectiveGate.waitingFor, since } } : {}),
      }
    : undefined;

  // Progressing
  let progressing: ConditionUpdate;
  let gateBlockedEvent: string | undefined;
  const total = updated.length + (current !== undefined ? 1 : 0) + pending.length;
  const position = updated.length + 1;
  const subject = current ?? pending[0] ?? "";
  // A server already deleted on its way out is still being removed or replaced.
  const gone = input.previousRemovals?.some(
    (r) => r.name === subject && (r.phase === "Deleting" || r.phase === "Rejoining"),
  );
  const subjectKind =
    kindOf.get(subject) ??
    (gone ? (servers.some((s) => s.name === subject && s.planned) ? "replace" : "surplus") : "restart");
  const verb = verbFor(subjectKind);
  const reasonFor = (kind: "surplus" | "restart" | "replace") =>
    kind === "surplus" ? "ScalingDown" : kind === "restart" ? "RollingRestart" : "ReplacingServer";
  if (step.kind === "restart-all") {
    progressing = { type: "Progressing", status: "True", reason: "RollingRestart", message: describeStep(step) };
  } else if (input.hold) {
    progressing = { type: "Progressing", status: "True", reason: input.hold.reason, message: input.hold.message };
  } else if (blocked && step.kind === "none") {
    progressing = { type: "Progressing", status: "False", reason: blocked.reason, message: blocked.message };
  } else if (active) {
    const waiting = effectiveGate ? `; waiting for ${effectiveGate.waitingFor}` : "";
    const what =
      current !== undefined
        ? `${verb} ${subject} (${position} of ${total})`
        : `before ${verb} ${subject} (${position} of ${total})`;
    const closedFor = since ? now.getTime() - Date.parse(since) : 0;
    if (input.paused && step.kind === "none" && pending.length > 0) {
      progressing = {
        type: "Progressing",
        status: "False",
        reason: "RolloutPaused",
        message: `paused before ${verbFor(kindOf.get(pending[0] ?? "") ?? "restart")} ${pending[0] ?? ""}`,
      };
    } else if (step.kind === "none" && effectiveGate && closedFor >= GATE_BLOCKED_AFTER_MS) {
      const minutes = Math.floor(closedFor / 60000);
      const message = `${what}; gate closed for ${minutes}m waiting for ${effectiveGate.waitingFor}: ${effectiveGate.detail}`;
      progressing = { type: "Progressing", status: "False", reason: "GateBlocked", message };
      if (input.previousProgressingReason !== CLUSTER_REASONS.GateBlocked) gateBlockedEvent = message;
    } else {
      // A replaced server comes back only once its old claim is gone (C36).
      const terminating =
        subjectKind === "replace" ? input.claimsTerminating?.find((c) => c.server === subject) : undefined;
      progressing = terminating
        ? {
            type: "Progressing",
            status: "True",
            reason: "ClaimTerminating",
            message: `${what}; waiting for its old claim ${terminating.claim} to be deleted`,
          }
        : { type: "Progressing", status: "True", reason: reasonFor(subjectKind), message: `${what}${waiting}` };
    }
  } else {
    const creating = servers
      .filter((s) => s.planned && (!s.exists || (!s.podReady && s.reportedRevision === undefined)))
      .map((s) => s.name);
    const reloading = servers.filter((s) => s.reloading === true).map((s) => s.name);
    progressing =
      creating.length > 0
        ? { type: "Progressing", status: "True", reason: "Creating", message: `creating ${creating.join(", ")}` }
        : reloading.length > 0
          ? {
              type: "Progressing",
              status: "True",
              reason: "ReloadPending",
              message: `reloading ${reloading.join(", ")} onto revision ${target}`,
            }
          : {
              type: "Progressing",
              status: "False",
              reason: "UpToDate",
              message: "every server runs the target revision",
            };
  }

  const serversReady = ready(servers, input.replicas, input.foreign);
  const readyCondition = withLeftovers(serversReady, input.leftovers ?? []);
  const settled = settledCondition(snapshot, input.unobserved);
  const removals: Removal[] = [];
  const previousPhase = (name: string) => input.previousRemovals?.find((r) => r.name === name)?.phase;
  const phaseOf = (name: string): Removal["phase"] | undefined => {
    if (progress && name === (inFlight?.name ?? starting)) return progress.phase;
    if (step.kind === "evacuate" && step.server === name) return "Evacuating";
    if (current === name && leaving(name)) return "Deleting";
    if (kindOf.get(name) === "replace") return "Requested";
    // Deleted and waiting to come back (its old claim may still be terminating), then back under
    // its name until the gate next opens.
    const before = previousPhase(name);
    if (current !== name || (before !== "Deleting" && before !== "Rejoining")) return undefined;
    return servers.some((s) => s.name === name && s.exists) ? "Rejoining" : "Deleting";
  };
  for (const name of [current, ...pending]) {
    if (name === undefined) continue;
    const phase = phaseOf(name);
    if (!phase) continue;
    const before = input.previousRemovals?.find((r) => r.name === name && r.phase === phase);
    removals.push({ name, phase, since: before?.since ?? now.toISOString() });
  }

  const atRest =
    !active &&
    progressing.reason === "UpToDate" &&
    settled.status === "True" &&
    // Leftovers wait for a person: they keep Ready False, not the rollout's poll going.
    serversReady.reason === "AllServersReady";
  // A failed render is told first; the rollout itself carries on (steps need no render).
  // GateBlocked is then not what Progressing says, so its event waits until it is.
  if (input.hold?.refused) {
    progressing = { type: "Progressing", status: "False", reason: input.hold.reason, message: input.hold.message };
    gateBlockedEvent = undefined;
  } else if (input.renderFailure !== undefined) {
    const { reason, message } = input.renderFailure;
    progressing = { type: "Progressing", status: "False", reason, message };
    gateBlockedEvent = undefined;
  }
  return {
    step,
    removals,
    ...(rollout ? { rollout } : {}),
    conditions: [readyCondition, settled, progressing],
    ...(gateBlockedEvent ? { gateBlockedEvent } : {}),
    ...(step.kind !== "none" && !resent ? { stepEvent: describeStep(step) } : {}),
    clearForceStep: input.forceStep !== undefined,
    clearRestartAll: step.kind === "restart-all",
    polling: !atRest && !(blocked && step.kind === "none" && !gate),
  };
}

export type { Removal, WaitingFor };
