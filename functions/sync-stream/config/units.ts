// Kubernetes durations and quantities to and from the numbers nats-server speaks.
import { durationToNanos } from "../../../shared/units/duration.ts";

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

const binarySuffixes: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const decimalSuffixes: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** A Kubernetes quantity ("5Gi", "64Ki", "-1", 1024) in bytes; undefined when unreadable. */
export function quantityToBytes(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? Math.round(value) : undefined;
  const match = /^([+-]?\d+(?:\.\d+)?)(?:(Ki|Mi|Gi|Ti|Pi|Ei)|([eE][+-]?\d+)|(n|u|m|k|M|G|T|P|E)?)$/.exec(value.trim());
  if (!match) return undefined;
  const number = Number(match[1]);
  if (match[2]) return Math.round(number * (binarySuffixes[match[2]] as number));
  if (match[3]) return Math.round(number * 10 ** Number(match[3].slice(1)));
  return Math.round(number * (decimalSuffixes[match[4] ?? ""] as number));
}

/** Bytes as a quantity string: the largest binary suffix that divides exactly, else plain digits. */
export function bytesToQuantity(bytes: number): string {
  if (bytes > 0) {
    for (const suffix of ["Ei", "Pi", "Ti", "Gi", "Mi", "Ki"]) {
      const unit = binarySuffixes[suffix] as number;
      if (bytes % unit === 0) return `${bytes / unit}${suffix}`;
    }
  }
  return String(bytes);
}
