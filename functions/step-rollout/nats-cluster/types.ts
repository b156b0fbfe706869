// step-rollout's vocabulary for a NatsCluster: what one delivery observes (observe.ts) and what it
// decides (decide.ts), which act.ts carries out. `plan` is the cluster's render plan only; the
// rollout's own decision is `rollout`.
import type { NatsClusterStatus } from "../../../shared/api/index.ts";
import type { KubeObject } from "../../../shared/kube/index.ts";
import type { Cluster, ClusterPlan, Hold, LeafRemotes, ServerConnectivity } from "../../cluster/index.ts";
import type { ReloadAction } from "../reload/changes.ts";
import type { ServerReport } from "../rollout/snapshot.ts";
import type { RolloutDecision, ServerInput, Step } from "../rollout/types.ts";
import type { SystemUser } from "../servers/system-user.ts";

export type StatefulSet = KubeObject & {
  spec: {
    template: {
      metadata?: { annotations?: Record<string, string> };
      spec: { containers?: { name: string; image?: string }[] };
    };
  } & Record<string, unknown>;
  status?: { observedGeneration?: number; readyReplicas?: number; updatedReplicas?: number };
};

export type ConfigMap = KubeObject & { data?: Record<string, string> };

/** Plain data: the NatsCluster as read and everything around it, as read in one delivery. */
export interface Observed {
  cluster: Cluster;
  plan: ClusterPlan;
  /** False while the mounted TLS Secrets are not there yet. */
  certificatesReady: boolean;
  /** Which certificate is awaited, while one is (absent: the route or client one). */
  certificateWait?: Hold;
  /** The leaf remotes as read: rendered, or refused and left out (absent: none). */
  leafRemotes?: LeafRemotes;
  /** What the servers answered about their gateway and leaf connections; absent with neither. */
  connectivity?: ServerConnectivity[];
  /** Set while the trust is refused: the servers are held at their last render. */
  hold?: Hold;
  /** The owned StatefulSets of the cluster's servers, by server name. */
  statefulSets: Map<string, StatefulSet>;
  /** The owned ConfigMaps, by ConfigMap name. */
  configMaps: Map<string, ConfigMap>;
  /** Objects of rendered names this NatsCluster does not control. */
  foreign: string[];
  /** What each existing server's monitoring port answered. */
  reports: ServerReport[];
  systemUser: SystemUser;
}

/** A Kubernetes Event to record on the NatsCluster. */
export interface ClusterEvent {
  type: "Normal" | "Warning";
  reason: string;
  note: string;
}

/** A deleting NatsCluster that still carries the jetstream-data finalizer. */
export interface FinalizeDecision {
  kind: "finalize";
  /** Release the finalizer; otherwise write `status` (Deleting) and wait. */
  release: boolean;
  status: NatsClusterStatus;
  summary: string;
  poll: boolean;
}

export interface RolloutStepDecision {
  kind: "rollout";
  /** The jetstream-data finalizer to add (JetStream on) or remove (JetStream off). */
  finalizer?: "add" | "remove";
  /** replace-server was read: mark this server's StatefulSet Requested (when set) and clear the annotation. */
  replaceRequest?: { server?: string };
  /** The status to write, guarded by the resourceVersion read: the claim of everything below. */
  status: NatsClusterStatus;
  reloads: ReloadAction[];
  step: Step;
  events: ClusterEvent[];
  /** One-shot annotations read and acted on. */
  clear: string[];
  poll: boolean;
  /** The servers as the rollout saw them, and what its state machine decided: for `preview` and the summary. */
  servers: ServerInput[];
  rollout: RolloutDecision;
  pendingReloads: { server: string; detail: string }[];
  summary: string;
}

export type Decision = FinalizeDecision | RolloutStepDecision;
