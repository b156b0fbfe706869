// What the render-failure annotations should say (pure). The failure is kept in
// `render-failure`, which step-rollout turns into `Progressing=False`; its reason is
// `ReconcileFailed` unless the failure names a more specific one (a refused trust), kept in
// `render-failure-reason`. The message is cut to the 1 kB an Event note holds, so the annotation
// and the Warning event say the same.
import { RENDER_FAILURE_ANNOTATION, RENDER_FAILURE_REASON_ANNOTATION } from "../../shared/api/index.ts";
import { KubeRequestError } from "../../shared/kube/index.ts";
import { failureMessage, GENERIC_FAILURE_REASON, type RenderFailure } from "../cluster/index.ts";

/**
 * What a failed delivery records: one text for every failure of the API server for now (429, 503,
 * no answer), whatever request it was; the error's message otherwise. A run of such failures then
 * writes the annotation once, where a message naming each failing request was a new annotation per
 * delivery, each write an event that fed render-cluster another delivery while observedGeneration
 * was behind (not an echo), and each bumping the resourceVersion step-rollout's guarded status write
 * needs: at a tenth of requests failing, step-rollout lost every claim to that loop.
 */
export function failureOfError(error: unknown): string {
  if (error instanceof KubeRequestError && error.isTransient) return API_FAILED_FOR_NOW;
  return error instanceof Error ? error.message : String(error);
}

export const API_FAILED_FOR_NOW =
  "the API server failed a request for now (throttled, unavailable or unanswered); the render is tried again";

/** A failure named by its message alone reads as `ReconcileFailed`. */
export const namedFailure = (failure: RenderFailure | string | undefined): RenderFailure | undefined =>
  typeof failure === "string" ? { reason: GENERIC_FAILURE_REASON, message: failure } : failure;

/**
 * The annotation changes (a merge patch: null removes) that make `annotations` record `failure`
 * (undefined: no failure); undefined when they already do, so an unchanged world writes nothing.
 */
export function failureAnnotationChanges(
  annotations: Record<string, string> | undefined,
  failure: RenderFailure | undefined,
): Record<string, string | null> | undefined {
  const message = failure === undefined ? undefined : failureMessage(failure.message);
  const reason = failure?.reason ?? GENERIC_FAILURE_REASON;
  // The reason annotation is kept only for a specific reason, so a generic failure writes one key.
  const reasonAnnotation = reason === GENERIC_FAILURE_REASON ? undefined : reason;
  const reasonKept = annotations?.[RENDER_FAILURE_REASON_ANNOTATION] === reasonAnnotation;
  if (annotations?.[RENDER_FAILURE_ANNOTATION] === message && reasonKept) return undefined;
  return {
    [RENDER_FAILURE_ANNOTATION]: message ?? null,
    ...(reasonKept ? {} : { [RENDER_FAILURE_REASON_ANNOTATION]: reasonAnnotation ?? null }),
  };
}

/** The Warning event that tells a newly recorded failure, with the annotation's text. */
export const failureEvent = (failure: RenderFailure) =>
  ({ type: "Warning", reason: failure.reason, note: failureMessage(failure.message) }) as const;
