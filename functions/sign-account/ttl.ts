// An account's jwtTTL in whole seconds: 48h when omitted, 0 for JWTs that never expire.

// The CRD defaults jwtTTL to DEFAULT_JWT_TTL of shared/api/auth/nats-account.ts; repeated here
// so the function does not load the schemas for one constant.
const DEFAULT_JWT_TTL = "48h";

const UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** A Go duration ("48h", "1h30m", "0s") in whole seconds; undefined when unreadable or negative. */
export function durationSeconds(text: string): number | undefined {
  const body = text.trim();
  if (body === "0") return 0;
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < body.length) {
    part.lastIndex = at;
    const match = part.exec(body);
    if (!match) return undefined;
    total += Number(match[1]) * (UNIT_SECONDS[match[2] ?? ""] ?? 0);
    at = part.lastIndex;
  }
  return at === 0 ? undefined : Math.floor(total);
}

export const jwtTtlSeconds = (jwtTTL: string | undefined): number | undefined =>
  durationSeconds(jwtTTL ?? DEFAULT_JWT_TTL);
