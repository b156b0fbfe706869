// Annotations users set and annotations the functions write.
import { API_GROUPS } from "../groups.ts";

const cluster = API_GROUPS.cluster;
const auth = API_GROUPS.auth;

/** Imperative knobs on a NatsCluster. */
export const CLUSTER_ANNOTATIONS = {
  /** Value: a server name. Pushes that server's waiting rollout step through the gate; cleared after acting. */
  forceStep: `${cluster}/force-step`,
  /** Value: a server name. Replaces the server under the rollout gate; cleared after acting. */
  replaceServer: `${cluster}/replace-server`,
  /** Presence: deletion proceeds although JetStream data remains. Read only during deletion. */
  forceDelete: `${cluster}/force-delete`,
  /**
   * Presence: restart every server at once to add or remove auth. On ephemeral JetStream storage
   * only the value RESTART_ALL_DISCARD_DATA does, since every server's JetStream data is lost at once.
   */
  restartAll: `${cluster}/restart-all`,
} as const;

/** The restart-all value that accepts losing every server's ephemeral JetStream data at once. */
export const RESTART_ALL_DISCARD_DATA = "discard-jetstream-data";

/** Annotations on objects rendered for a NatsCluster. */
export const RENDERED_ANNOTATIONS = {
  /** On StatefulSet, ConfigMap and pod template: the config revision rendered or last restarted for. */
  configRevision: `${cluster}/config-revision`,
  /** On the StatefulSet: digest of the spec rendered with. */
  specDigest: `${cluster}/spec-digest`,
  /** On the ConfigMap: Reload or Restart. */
  configApply: `${cluster}/config-apply`,
  /** On the ConfigMap: why the revision needs a restart. */
  restartReason: `${cluster}/restart-reason`,
  /** On the ConfigMap: RFC 3339 time the reload was asked for. */
  reloadSince: `${cluster}/reload-since`,
} as const;

/** On a server's StatefulSet: the removal phase of a server being replaced (`Requested`, ...). */
export const REMOVAL_ANNOTATION = `${cluster}/removal`;

/** On a server's StatefulSet: digest of the volume claim templates rendered with (a change replaces the server). */
export const VOLUME_DIGEST_ANNOTATION = "cluster.nats-operator.io/volume-digest";

/**
 * On the NatsCluster, written only by render-cluster: what its last reconcile failed on (an
 * error, or objects of rendered names it does not control). Absent when it succeeded.
 * step-rollout, which owns the conditions, reports it as `Progressing=False, ReconcileFailed`.
 */
export const RENDER_FAILURE_ANNOTATION = `${cluster}/render-failure`;

/**
 * Beside `render-failure`, the condition reason it reads as when that is more specific than
 * `ReconcileFailed` (a refused trust: `TrustNotFound`, `TrustNotReady`, `TrustInvalid`,
 * `AccountTrustNotFound`, `AccountTrustNotReady`, `AccountTrustInvalid`, `NoGrant`). Absent:
 * `ReconcileFailed`.
 */
export const RENDER_FAILURE_REASON_ANNOTATION = `${cluster}/render-failure-reason`;

/** On generated seed Secrets: `<operator|systemaccount|account>/<objectName>`. */
export const GENERATED_FOR_ANNOTATION = `${auth}/generated-for` as const;

/**
 * On a NatsUser's creds Secret: a digest of the data sign-account wrote into it. A Secret event
 * whose data still matches it is the echo of that write and reconciles no one.
 */
export const CREDS_DIGEST_ANNOTATION = `${auth}/creds-digest` as const;

export type ClusterAnnotation = (typeof CLUSTER_ANNOTATIONS)[keyof typeof CLUSTER_ANNOTATIONS];
export type RenderedAnnotation = (typeof RENDERED_ANNOTATIONS)[keyof typeof RENDERED_ANNOTATIONS];
