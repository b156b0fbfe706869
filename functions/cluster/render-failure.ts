// What a failed render reads as; the annotations that record it are in shared/api/constants.
import { CLUSTER_REASONS, isReason, type Reason, RENDER_FAILURE_REASON_ANNOTATION } from "../../shared/api/index.ts";

/** The reason of a failure that names none. */
export const GENERIC_FAILURE_REASON = CLUSTER_REASONS.ReconcileFailed;

/** What a failed render reads as: the condition reason and the message. */
export interface RenderFailure {
  reason: Reason;
  message: string;
}

/**
 * The reason a recorded render failure reads as: the one render-cluster wrote, which is always of
 * the vocabulary; anything else in the annotation (an edit by hand) reads as the generic reason.
 */
export const renderFailureReason = (annotations: Record<string, string> | undefined): Reason => {
  const recorded = annotations?.[RENDER_FAILURE_REASON_ANNOTATION];
  return recorded !== undefined && isReason(recorded) ? recorded : GENERIC_FAILURE_REASON;
};

/** Kubernetes caps an Event note at 1 kB; the annotation keeps the same text as the Event. */
const maxMessageLength = 1024;

export const failureMessage = (message: string): string =>
  message.length > maxMessageLength ? `${message.slice(0, maxMessageLength - 1)}…` : message;
