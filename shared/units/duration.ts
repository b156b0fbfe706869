// Durations as the API writes them (Go's and Kubernetes' "72h", "1h30m", "0.5s", "300ms"), read
// once here for every function: sync-stream's JetStream ages, sign-account's jwtTTL, balance's interval.

const NANOS_PER_UNIT: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** A duration in nanoseconds, signed ("-1s"); undefined when it is not one. */
export function durationToNanos(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === "0") return 0;
  const sign = trimmed.startsWith("-") ? -1 : 1;
  const body = trimmed.replace(/^[-+]/, "");
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < body.length) {
    part.lastIndex = at;
    const match = part.exec(body);
    if (!match) return undefined;
    total += Number(match[1]) * (NANOS_PER_UNIT[match[2] ?? ""] ?? 0);
    at = part.lastIndex;
  }
  return at === 0 ? undefined : sign * Math.round(total);
}
