// What a failed render reads as; the annotations that record it are in shared/api/constants.
import { RENDER_FAILURE_REASON_ANNOTATION } from "../../shared/api/index.ts";

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
