// Kubernetes durations and quantities to and from the numbers nats-server speaks.
import { durationToNanos, formatBytes, parseBytes } from "../../../shared/units/index.ts";

export { durationToNanos };

/** Nanoseconds written as Go writes a time.Duration ("168h0m0s", "1.5s", "300ms"). */
export function nanosToDuration(nanos: number): string {
  if (nanos === 0) return "0s";
  const sign = nanos < 0 ? "-" : "";
  let n = Math.abs(nanos);
  if (n < 1e9) {
    if (n < 1e3) return `${sign}${n}ns`;
    if (n < 1e6) return `${sign}${trimZeros(n / 1e3)}µs`;
    return `${sign}${trimZeros(n / 1e6)}ms`;
  }
  const hours = Math.floor(n / 3600e9);
  n -= hours * 3600e9;
  const minutes = Math.floor(n / 60e9);
  n -= minutes * 60e9;
  const seconds = trimZeros(n / 1e9);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

function trimZeros(value: number): string {
  return String(Number(value.toFixed(9)));
}

/**
 * A Kubernetes quantity ("5Gi", "64Ki", 1024) in bytes, as the API's one quantity parser reads it,
 * or -1, JetStream's "no limit"; undefined when unreadable.
 */
export function quantityToBytes(value: string | number): number | undefined {
  if (value === -1 || (typeof value === "string" && value.trim() === "-1")) return -1;
  const bytes = parseBytes(value);
  return bytes === undefined ? undefined : Number(bytes);
}

/** Bytes as a quantity string: the largest binary suffix that divides exactly, else plain digits. */
export function bytesToQuantity(bytes: number): string {
  return bytes > 0 && Number.isSafeInteger(bytes) ? formatBytes(BigInt(bytes)) : String(bytes);
}
