// An account's jwtTTL in whole seconds: 48h when omitted, 0 for JWTs that never expire.
import { durationToNanos } from "../../../shared/units/index.ts";

// The CRD defaults jwtTTL to DEFAULT_JWT_TTL of shared/api/auth/nats-account.ts; repeated here
// so the function does not load the schemas for one constant.
const DEFAULT_JWT_TTL = "48h";

/** A duration ("48h", "1h30m", "0s") in whole seconds; undefined when unreadable or negative. */
export function durationSeconds(text: string): number | undefined {
  const nanos = durationToNanos(text);
  return nanos === undefined || nanos < 0 ? undefined : Math.floor(nanos / 1e9);
}

export const jwtTtlSeconds = (jwtTTL: string | undefined): number | undefined =>
  durationSeconds(jwtTTL ?? DEFAULT_JWT_TTL);
