// The rollout's vocabulary: the servers as the state machine sees them, what it is given, and
// the step and status it decides (state-machine.ts).
import type { NatsClusterStatus, Reason } from "../../../shared/api/index.ts";
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import type { AuthChange } from "./auth-change.ts";
import type { PodFailure } from "./pod-failure.ts";
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
  /** Planned, existing and not Ready: why its pod does not come up, when the cluster says (pod-failure.ts). */
  failure?: PodFailure;
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
  /** JetStream runs on emptyDir (no volumeClaimTemplate): a restart empties a server's store. */
  ephemeralJetStream?: boolean;
  /** restart-all says `discard-jetstream-data`: losing every server's ephemeral JetStream data is accepted. */
  restartAllDiscardsData?: boolean;
  /** `status.rollout` as last written, when it names a target. */
  previous?: NonNullable<NatsClusterStatus["rollout"]> & { targetRevision: string };
  previousProgressingReason?: string;
  previousRemovals?: readonly Removal[];
  /**
   * Claims a server's deletion left behind: the server is `Deleting`, its StatefulSet is gone and
   * its own claim, made before the phase began, is there and not terminating (by uid).
   */
  claimsLeft?: readonly { server: string; uid: string }[];
  /**
   * Claims of `Deleting` servers whose StatefulSet is gone and whose claim is terminating: a
   * replaced server is recreated only once its old claim is gone.
   */
  claimsTerminating?: readonly { server: string; claim: string }[];
  /**
   * Set while a mounted certificate is missing or the trust is refused: nothing steps, Progressing
   * says why (True while a certificate is awaited; False, above all else, for a refused trust).
   */
  hold?: { reason: Reason; message: string; refused?: boolean };
  /** Rendered names held by objects this NatsCluster does not control. */
  foreign: readonly string[];
  /** What removed servers left behind that is not theirs to delete, described (H10). */
  leftovers?: readonly string[];
  /** What render-cluster's last reconcile failed on, as it recorded it; absent when it succeeded. */
  renderFailure?: { message: string; reason: Reason };
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
