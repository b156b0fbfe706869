// step-rollout's vocabulary for a NatsCluster: what one delivery observes (observe.ts) and what it
// decides (decide.ts), which act.ts carries out. `plan` is the cluster's render plan only; the
// rollout's own decision is `rollout`.
import type { NatsClusterStatus } from "../../../shared/api/index.ts";
import type { KubeObject } from "../../../shared/kube/index.ts";
import type { Cluster, ClusterPlan, Hold, LeafRemotes, ServerConnectivity } from "../../cluster/index.ts";
import type { ReloadAction } from "../reload/changes.ts";
import type { ServerReport } from "../rollout/snapshot.ts";
import type { RolloutDecision, ServerInput, Step } from "../rollout/types.ts";
import type { SystemUser } from "../servers/types.ts";

export type StatefulSet = KubeObject & {
  /** `managedFields` as the API server keeps them: when each manager last changed the object. */
  metadata: { managedFields?: { manager?: string; time?: string; subresource?: string }[] };
  spec: {
    template: {
      metadata?: { annotations?: Record<string, string> };
      spec: { containers?: { name: string; image?: string }[] };
    };
  } & Record<string, unknown>;
  status?: { observedGeneration?: number; readyReplicas?: number; updatedReplicas?: number };
};

export type ConfigMap = KubeObject & { data?: Record<string, string> };

/** A container's state as the kubelet reports it: one of the three is set. */
export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { reason?: string; exitCode?: number; message?: string };
}

export interface ContainerStatus {
  name: string;
  image?: string;
  ready?: boolean;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
}

/** The parts of a server's pod that say why it does not come up. */
export type Pod = KubeObject & {
  spec?: {
    containers?: { name: string; image?: string; resources?: { limits?: Record<string, string> } }[];
    initContainers?: { name: string; image?: string; resources?: { limits?: Record<string, string> } }[];
  };
  status?: { containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[] };
};

/** A FailedCreate Event of a server's StatefulSet: why its controller could not create the pod. */
export interface FailedCreate {
  message: string;
  /** When it was last seen (RFC 3339). */
  at: string;
}

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
  /** The pods of the cluster's servers, by server name. */
  pods: Map<string, Pod>;
  /**
   * For a server whose StatefulSet exists but whose pod does not: the StatefulSet's newest
   * FailedCreate Event, when it is not older than the StatefulSet's last change (failed-create.ts).
   */
  failedCreates: Map<string, FailedCreate>;
  /** What each existing server's monitoring port answered. */
  reports: ServerReport[];
  /**
   * The meta leader's own JSZ when it sits in another NATS cluster and answered the system user
   * (C23, C37): who it counts in the meta group. Absent: none of ours follows a remote leader, no
   * system user, or it did not answer (the followers' view stands).
   */
  metaLeader?: ServerReport;
  /**
   * The data claims of the servers `status.removals` says are `Deleting`, by server name: what
   * their deletion may have left behind (absent: none read).
   */
  claims?: Map<string, KubeObject>;
  /**
   * The ConfigMaps of the servers `status.removals` says are `Deleting`, whoever controls them, by
   * server name: with their claims, what a removal may leave behind (H10; absent: none read).
   */
  deletingConfigMaps?: Map<string, KubeObject>;
  /** The objects `status.leftovers` records that are still there, by `<kind>/<name>` (absent: none read). */
  leftovers?: Map<string, KubeObject>;
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
  /** Look again at the slower pace of a cluster at rest whose links are watched (never while deleting). */
  watchLinks: false;
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
  /** Look again soon (a rollout moves, a peer or link is not up yet). */
  poll: boolean;
  /** Otherwise look again at the slower pace of a cluster at rest whose links are watched (LINK_WATCH_POLL). */
  watchLinks: boolean;
  /** The servers as the rollout saw them, and what its state machine decided: for `preview` and the summary. */
  servers: ServerInput[];
  rollout: RolloutDecision;
  pendingReloads: { server: string; detail: string }[];
  summary: string;
}

export type Decision = FinalizeDecision | RolloutStepDecision;
