// The rollout's vocabulary: the servers as the state machine sees them, what it is given, and
// the step and status it decides (state-machine.ts).
import type { NatsClusterStatus } from "../../../shared/api/index.ts";
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import type { AuthChange } from "./auth-change.ts";
import type { Removal, RemovalAction } from "./removal.ts";
import type { Snapshot } from "./snapshot.ts";

export interface ServerInput {
  name: string;
  ordinal: number;
  /** Its ordinal is below spec.replicas. */
  planned: boolean;
  /** Its StatefulSet exists. */
  exists: boolean;
  /** Its StatefulSet is at the target revision. */
  onTarget: boolean;
  /** Why it needs a restart (planned, existing, off target). */
  restartReason?: string;
  /** Its claim template changed or replace-server named it. */
  replace?: boolean;
  /** The planned config adds or removes auth against the one it runs. */
  authChange?: AuthChange;
  /** Off target and taking its config by a reload not yet confirmed: not a rollout step. */
  reloading?: boolean;
  podReady: boolean;
  reportedRevision?: string;
  reportedVersion?: string;
}

export interface RolloutStatus {
  targetRevision: string;
  updated?: string[];
  current?: string;
  pending?: string[];
  gate?: { waitingFor: string; since: string };
}

export interface RolloutInput {
  cluster: string;
  replicas: number;
  targetRevision: string;
  jetstream: boolean;
  /** JetStream servers can be evacuated (system credentials are configured). */
  canEvacuate: boolean;
  /** Why the configured system credentials cannot be used, when they cannot. */
  evacuationUnavailable?: string;
  servers: readonly ServerInput[];
  snapshot?: Snapshot;
  /** Why there is no snapshot, server by server, when there is none. */
  unobserved?: string;
  paused: boolean;
  forceStep?: string;
  /** The restart-all annotation is present. */
  restartAll?: boolean;
  /** `status.rollout` as last written, when it names a target. */
  previous?: NonNullable<NatsClusterStatus["rollout"]> & { targetRevision: string };
  previousProgressingReason?: string;
  previousRemovals?: readonly Removal[];
  /**
   * Set while a mounted certificate is missing or the trust is refused: nothing steps, Progressing
   * says why (True while a certificate is awaited; False, above all else, for a refused trust).
   */
  hold?: { reason: string; message: string; refused?: boolean };
  /** Rendered names held by objects this NatsCluster does not control. */
  foreign: readonly string[];
  /** What render-cluster's last reconcile failed on, as it recorded it; absent when it succeeded. */
  renderFailure?: { message: string; reason: string };
  now: Date;
}

export type Step =
  | { kind: "none" }
  | { kind: "restart"; server: string; forced: boolean }
  /** Every named server at once: an auth change under restart-all. */
  | { kind: "restart-all"; servers: string[]; change: AuthChange }
  | RemovalAction;

export interface RolloutDecision {
  step: Step;
  /** `status.removals`: servers on their way out or waiting to be replaced. */
  removals: Removal[];
  rollout?: RolloutStatus;
  conditions: ConditionUpdate[];
  /** Message of a GateBlocked Warning event to record (once, on the transition). */
  gateBlockedEvent?: string;
  /** Message of the RolloutStep event for the step taken. */
  stepEvent?: string;
  /** The force-step annotation was read and must be cleared. */
  clearForceStep: boolean;
  /** restart-all was acted on and must be cleared. */
  clearRestartAll: boolean;
  /** Keep the PingSource poking: something is still moving. */
  polling: boolean;
}
