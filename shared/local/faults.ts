// Faults the in-process runner can put into event delivery, so the scenarios of the real-Knative
// chaos test (test/integration/chaos/knative-faults.test.ts) also run fast without Knative. On
// Knative an event can be lost, delivered twice, delivered late and overtaken, and handled by
// several pods of one function at once; the functions must end where a clean run ends anyway.
// Each delivery's fate comes from a PRNG seeded with the run's seed and the delivery's number, so
// the same seed makes the same decisions for the same sequence of deliveries.
import { limited } from "../kube/events.ts";

/** The faults of a run; all zero (and no concurrency limit) is a clean run. */
export interface Faults {
  /** The share of deliveries dropped, as if the Broker had given up on them; below 1. */
  dropRatio: number;
  /** Extra copies of every delivery not dropped, delivered concurrently as a second Trigger would. */
  duplicate: number;
  /** Each copy waits a random time below this before it is delivered, so later events overtake it. */
  reorderMs: number;
  /** The most deliveries in flight per function; Infinity for no limit. */
  concurrency: number;
  seed: number;
  /**
   * The kinds whose ApiServerSource events the faults apply to (`kinds=Secret+NatsReferenceGrant`);
   * every other event is delivered once, at once. Empty: every event, ticks included.
   */
  kinds: readonly string[];
}

/** The variable `nats-operator run` reads its faults from. */
export const FAULTS_ENV = "NATS_OPERATOR_FAULTS";

export type ParsedFaults = { ok: true; faults: Faults } | { ok: false; message: string };

interface Reader {
  expects: string;
  read(value: string): Partial<Faults> | undefined;
}

const readers: Record<string, Reader> = {
  drop: {
    expects: "a ratio below 1 (0.1 or 10%), or up to 1 with kinds=",
    read: (value) => {
      const ratio = readRatio(value);
      return ratio === undefined ? undefined : { dropRatio: ratio };
    },
  },
  kinds: {
    expects: "kinds joined by + (Secret+NatsReferenceGrant)",
    read: (value) => {
      const kinds = value.split("+").map((k) => k.trim());
      return kinds.every((k) => /^[A-Z][A-Za-z0-9]*$/.test(k)) ? { kinds } : undefined;
    },
  },
  duplicate: {
    expects: "a count of extra copies (0, 1, 2, …)",
    read: (value) => {
      const count = readInteger(value);
      return count === undefined ? undefined : { duplicate: count };
    },
  },
  reorder: {
    expects: "a delay window (300ms, 2s)",
    read: (value) => {
      const ms = readDurationMs(value);
      return ms === undefined ? undefined : { reorderMs: ms };
    },
  },
  concurrency: {
    expects: "a count of deliveries of at least 1",
    read: (value) => {
      const count = readInteger(value);
      return count === undefined || count < 1 ? undefined : { concurrency: count };
    },
  },
  seed: {
    expects: "an unsigned 32-bit integer",
    read: (value) => {
      const seed = readInteger(value);
      return seed === undefined || seed > 0xffffffff ? undefined : { seed };
    },
  },
};

/**
 * Reads `drop=0.1,duplicate=1,reorder=300ms,concurrency=4,seed=7,kinds=Secret`; every key is
 * optional and an unknown one is refused. Dropping every event (`drop=1`) is only for some kinds:
 * a run that loses everything shows nothing. `seed` defaults to `defaultSeed` (the caller's random one, which it logs
 * so the run can be repeated).
 */
export function parseFaults(text: string, defaultSeed: number): ParsedFaults {
  const pairs = text
    .split(",")
    .map((pair) => pair.trim())
    .filter(Boolean);
  const known = Object.keys(readers).join(", ");
  if (pairs.length === 0) return { ok: false, message: `no faults named; expected key=value pairs of ${known}` };
  let faults: Faults = {
    dropRatio: 0,
    duplicate: 0,
    reorderMs: 0,
    concurrency: Infinity,
    seed: defaultSeed,
    kinds: [],
  };
  const seen = new Set<string>();
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    if (equals < 0) return { ok: false, message: `"${pair}" is not key=value` };
    const key = pair.slice(0, equals).trim();
    const value = pair.slice(equals + 1).trim();
    const reader = Object.hasOwn(readers, key) ? readers[key] : undefined;
    if (reader === undefined) return { ok: false, message: `unknown fault "${key}"; known: ${known}` };
    if (seen.has(key)) return { ok: false, message: `"${key}" is given twice` };
    seen.add(key);
    const read = reader.read(value);
    if (read === undefined) return { ok: false, message: `${key}=${value}: expected ${reader.expects}` };
    faults = { ...faults, ...read };
  }
  if (faults.dropRatio >= 1 && faults.kinds.length === 0)
    return { ok: false, message: `drop=${faults.dropRatio}: expected ${readers["drop"]?.expects ?? ""}` };
  return { ok: true, faults };
}

/** One line for the log: what this run does to deliveries. */
export function describeFaults(faults: Faults): string {
  const parts = [
    faults.dropRatio > 0 ? `drop ${Math.round(faults.dropRatio * 1000) / 10}%` : undefined,
    faults.duplicate > 0 ? `${faults.duplicate} extra ${faults.duplicate === 1 ? "copy" : "copies"}` : undefined,
    faults.reorderMs > 0 ? `reorder within ${faults.reorderMs} ms` : undefined,
    Number.isFinite(faults.concurrency) ? `at most ${faults.concurrency} in flight per function` : undefined,
  ].filter((part) => part !== undefined);
  const of = faults.kinds.length > 0 ? ` of ${faults.kinds.join(", ")} events` : "";
  return `${parts.length > 0 ? parts.join(", ") : "none"}${of} (seed ${faults.seed})`;
}

/** What happens to one delivery: the delay of each copy to deliver, none when it is dropped. */
export interface FaultDecision {
  delaysMs: number[];
}

/** The fate of the `n`-th delivery of a run: pure, the same for the same faults and `n`. */
export function decideFault(faults: Faults, n: number): FaultDecision {
  const random = mulberry32(mix(faults.seed, n));
  if (random() < faults.dropRatio) return { delaysMs: [] };
  return {
    delaysMs: Array.from({ length: 1 + faults.duplicate }, () => Math.floor(random() * faults.reorderMs)),
  };
}

/** A gate every task of one function passes through. */
export type Limit = <T>(task: () => Promise<T>) => Promise<T>;

/**
 * Wraps a per-function delivery with the faults: each call is the next delivery of the run, and
 * resolves to the results of the copies delivered (none when dropped). A copy waits its delay,
 * then a slot among the function's `concurrency`; it holds the slot through its own retries,
 * which only slows a run down, as a busy pod would. `onDecision` sees each decision (to count).
 * With `faults.kinds`, an event whose kind (`kindOf`) is not one of them is delivered as is.
 */
export function withFaults<F extends { readonly name: string }, E, R>(
  deliver: (fn: F, event: E) => Promise<R>,
  faults: Faults,
  onDecision?: (decision: FaultDecision, fn: F) => void,
  kindOf: (event: E) => string | undefined = () => undefined,
): (fn: F, event: E) => Promise<R[]> {
  let deliveries = 0;
  const limits = new Map<string, Limit>();
  const limitOf = (name: string): Limit => {
    let limit = limits.get(name);
    if (limit === undefined) {
      limit = limited(faults.concurrency);
      limits.set(name, limit);
    }
    return limit;
  };
  const targeted = (event: E) => {
    if (faults.kinds.length === 0) return true;
    const kind = kindOf(event);
    return kind !== undefined && faults.kinds.includes(kind);
  };
  return async (fn, event) => {
    if (!targeted(event)) return [await deliver(fn, event)];
    const decision = decideFault(faults, deliveries++);
    onDecision?.(decision, fn);
    return Promise.all(
      decision.delaysMs.map(async (delayMs) => {
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        return limitOf(fn.name)(() => deliver(fn, event));
      }),
    );
  };
}

function readInteger(value: string): number | undefined {
  return /^\d+$/.test(value) ? Number(value) : undefined;
}

function readRatio(value: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?|\.\d+)(%?)$/.exec(value);
  if (!match) return undefined;
  const ratio = Number(match[1]) / (match[2] === "%" ? 100 : 1);
  return ratio <= 1 ? ratio : undefined;
}

/** `300ms`, `1.5s`, or a bare number of milliseconds. */
function readDurationMs(value: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(value);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (match[2] === "s" ? 1000 : 1));
}

/** Spreads (seed, n) over 32 bits (murmur3's finaliser), so neighbouring deliveries are unrelated. */
function mix(seed: number, n: number): number {
  let h = (seed ^ Math.imul(n + 1, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A small 32-bit PRNG (mulberry32): uniform in [0, 1), repeatable from its seed. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
