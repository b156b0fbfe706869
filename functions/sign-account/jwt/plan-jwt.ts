// One JWT's part of a decision (pure): keep the JWT there is when it says what would be signed,
// or ask act to sign it.
import type { SignRequest } from "./claims.ts";
import { standing } from "./compare.ts";
import type { SignStep, SignTarget } from "../decision.ts";

export interface JwtPlan {
  /** The JWT to keep, when it stands. */
  keep?: string;
  step?: SignStep;
  /** When an expiring JWT is due for renewal: now plus half the TTL for one signed now. */
  renewAt?: Date;
  why?: string;
}

export function planJwt(existing: string | undefined, request: SignRequest, into: SignTarget, now: Date): JwtPlan {
  const stands = standing(existing, request, now);
  if (stands.kind === "current" && existing)
    return { keep: existing, ...(stands.renewAt ? { renewAt: stands.renewAt } : {}) };
  const renewAt = request.ttlSeconds > 0 ? new Date(now.getTime() + (request.ttlSeconds * 1000) / 2) : undefined;
  return {
    step: { request, into },
    ...(renewAt ? { renewAt } : {}),
    ...(stands.kind === "resign" ? { why: stands.why } : {}),
  };
}
