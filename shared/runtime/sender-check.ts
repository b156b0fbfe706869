// Who may POST an event to a function: with Knative Eventing's OIDC on (`authentication-oidc`),
// the Broker's filter sends each delivery with `Authorization: Bearer <jwt>`, a token of the
// Trigger's own ServiceAccount (`<trigger>-oidc-eventing.knative.dev-trigger`) for the audience the
// Trigger's `subscriber.audience` (or its `deadLetterSink.audience`) names. The check asks the API
// server (a TokenReview) whether a token is valid for this function's audience and accepts it only
// from the identities configured, so a pod elsewhere in the cluster cannot drive a function.
import { createHash } from "node:crypto";
import type { KubeTransport } from "../kube/transport.ts";

/** What a TokenReview said of a token, for one audience. */
export type TokenReview =
  | { kind: "authenticated"; username: string; audiences: readonly string[] }
  | { kind: "refused" }
  | { kind: "failed"; message: string };

/** Asks the API server about a token; never throws. */
export type TokenReviewer = (token: string, audience: string) => Promise<TokenReview>;

/** The verdict on one request, and, when refused, why (for the log only, never the answer). */
export type SenderVerdict =
  | { kind: "accepted"; username: string }
  | { kind: "unauthenticated"; reason: string }
  | { kind: "unavailable"; reason: string };

export interface SenderCheckOptions {
  /** The audience a token must be valid for: this function's own. */
  audience: string;
  /**
   * The usernames accepted (`system:serviceaccount:<namespace>:<name>`); one ending in `*` accepts
   * every username that starts with what precedes it, as an EventPolicy's `sub` does.
   */
  subjects: readonly string[];
  review: TokenReviewer;
  now?: () => number;
  /** The most tokens remembered; the oldest go first. */
  cacheSize?: number;
}

export type SenderCheck = (authorization: string | undefined) => Promise<SenderVerdict>;

/** How long a refusal is remembered: a flood of one forged token costs one review per interval. */
const refusalMemoryMs = 5_000;
const defaultCacheSize = 1_000;

/**
 * The check the server runs on every POST. An accepted token is remembered (by its SHA-256) until
 * its `exp`, so a warm function reviews each of the Broker's tokens once an hour; a refused one for
 * a few seconds only, so a token that becomes valid (a Trigger just created) is soon taken.
 */
export function senderCheck(options: SenderCheckOptions): SenderCheck {
  const now = options.now ?? Date.now;
  const cacheSize = options.cacheSize ?? defaultCacheSize;
  const remembered = new Map<string, { verdict: SenderVerdict; until: number }>();

  const remember = (key: string, verdict: SenderVerdict, until: number): void => {
    if (until <= now()) return;
    remembered.delete(key);
    while (remembered.size >= cacheSize) {
      const oldest = remembered.keys().next();
      if (oldest.done === true) break;
      remembered.delete(oldest.value);
    }
    remembered.set(key, { verdict, until });
  };

  return async (authorization) => {
    const token = bearerToken(authorization);
    if (token === undefined) return { kind: "unauthenticated", reason: "no bearer token" };
    const key = createHash("sha256").update(token).digest("hex");
    const known = remembered.get(key);
    if (known !== undefined && known.until > now()) return known.verdict;
    if (known !== undefined) remembered.delete(key);

    const review = await options.review(token, options.audience);
    if (review.kind === "failed") return { kind: "unavailable", reason: `token review failed: ${review.message}` };
    const verdict = judge(review, options);
    if (verdict.kind === "accepted") remember(key, verdict, expiryOf(token) ?? 0);
    else remember(key, verdict, now() + refusalMemoryMs);
    return verdict;
  };
}

function judge(review: Exclude<TokenReview, { kind: "failed" }>, options: SenderCheckOptions): SenderVerdict {
  if (review.kind === "refused")
    return { kind: "unauthenticated", reason: `not a valid token for audience ${options.audience}` };
  // An authenticator that ignores audiences answers without naming one: such an answer proves
  // nothing about the audience, so it is refused (as the TokenReview API tells clients to do).
  if (!review.audiences.includes(options.audience))
    return { kind: "unauthenticated", reason: `the review did not confirm audience ${options.audience}` };
  if (!options.subjects.some((subject) => subjectMatches(subject, review.username)))
    return { kind: "unauthenticated", reason: `sender ${review.username} is not accepted` };
  return { kind: "accepted", username: review.username };
}

function subjectMatches(subject: string, username: string): boolean {
  return subject.endsWith("*") ? username.startsWith(subject.slice(0, -1)) : username === subject;
}

function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization ?? "");
  return match?.[1];
}

/**
 * The token's `exp` in milliseconds, read without checking the signature (the TokenReview did);
 * undefined when there is none, and then the acceptance is not remembered.
 */
function expiryOf(token: string): number | undefined {
  const payload = token.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const exp = typeof claims === "object" && claims !== null ? (claims as { exp?: unknown }).exp : undefined;
    return typeof exp === "number" && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

interface TokenReviewStatus {
  status?: { authenticated?: boolean; user?: { username?: string }; audiences?: string[]; error?: string };
}

/** TokenReviews through the function's own API server connection (it needs `create` on `tokenreviews`). */
export function apiServerTokenReviewer(transport: () => Promise<KubeTransport>): TokenReviewer {
  return async (token, audience) => {
    try {
      const answer = (await (
        await transport()
      ).request("POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
        body: {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenReview",
          spec: { token, audiences: [audience] },
        },
      })) as TokenReviewStatus;
      const status = answer.status ?? {};
      if (status.authenticated !== true || status.user?.username === undefined) return { kind: "refused" };
      return { kind: "authenticated", username: status.user.username, audiences: status.audiences ?? [] };
    } catch (error) {
      // The message of a transport error names the API server and the status, never the request body.
      return { kind: "failed", message: error instanceof Error ? error.message : String(error) };
    }
  };
}

/** The check's settings from the environment, or a message when they are half set. */
export function senderCheckSettings(
  env: NodeJS.ProcessEnv,
): { ok: true; settings?: { audience: string; subjects: string[] } } | { ok: false; message: string } {
  const audience = env["NATS_OPERATOR_OIDC_AUDIENCE"]?.trim() ?? "";
  const subjects = (env["NATS_OPERATOR_OIDC_SUBJECTS"] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (audience === "" && subjects.length === 0) return { ok: true };
  if (audience === "")
    return { ok: false, message: "NATS_OPERATOR_OIDC_SUBJECTS is set without NATS_OPERATOR_OIDC_AUDIENCE" };
  if (subjects.length === 0)
    return { ok: false, message: "NATS_OPERATOR_OIDC_AUDIENCE is set without NATS_OPERATOR_OIDC_SUBJECTS" };
  return { ok: true, settings: { audience, subjects } };
}
