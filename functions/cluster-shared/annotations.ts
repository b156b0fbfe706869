// Annotations the cluster functions write that shared/api does not define (yet).
import { API_GROUPS } from "../../shared/api/groups.ts";

/** On a server's StatefulSet: the removal phase of a server being replaced (`Requested`, ...). */
export const REMOVAL_ANNOTATION = `${API_GROUPS.cluster}/removal`;

/**
 * On the NatsCluster, written only by render-cluster: what its last reconcile failed on (an
 * error, or objects of rendered names it does not control). Absent when it succeeded.
 * step-rollout, which owns the conditions, reports it as `Progressing=False, ReconcileFailed`.
 */
export const RENDER_FAILURE_ANNOTATION = `${API_GROUPS.cluster}/render-failure`;

/**
 * Beside `render-failure`, the condition reason it reads as when that is more specific than
 * `ReconcileFailed` (a refused trust: `TrustNotFound`, `TrustNotReady`, `TrustInvalid`,
 * `AccountTrustNotFound`, `AccountTrustNotReady`, `AccountTrustInvalid`, `NoGrant`). Absent:
 * `ReconcileFailed`.
 */
export const RENDER_FAILURE_REASON_ANNOTATION = `${API_GROUPS.cluster}/render-failure-reason`;

/** The reason of a failure that names none. */
export const GENERIC_FAILURE_REASON = "ReconcileFailed";

/** What a failed render reads as: the condition reason and the message. */
export interface RenderFailure {
  reason: string;
  message: string;
}

/** The reason a recorded render failure reads as. */
export const renderFailureReason = (annotations: Record<string, string> | undefined): string =>
  annotations?.[RENDER_FAILURE_REASON_ANNOTATION] ?? GENERIC_FAILURE_REASON;

/** Kubernetes caps an Event note at 1 kB; the annotation keeps the same text as the Event. */
const maxMessageLength = 1024;

export const failureMessage = (message: string): string =>
  message.length > maxMessageLength ? `${message.slice(0, maxMessageLength - 1)}…` : message;
