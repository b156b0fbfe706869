// Repairs that discard data, said before they are made (pure): a stream or a consumer that vanished
// on its server and is recreated empty or from spec, and drift repair that lowers a stream's limits
// or replicas.
import { JETSTREAM_REASONS } from "../../../shared/api/index.ts";
import { findCondition } from "../../../shared/kube/index.ts";
import type { Wire } from "../config/fields.ts";
import { bytesToQuantity, nanosToDuration } from "../config/units.ts";
import type { LostRecord, ObjectStatus } from "./status.ts";

/** Whether the server object existed: a sync recorded what the server reported of it. */
export const existedBefore = (status: ObjectStatus | undefined): boolean => status?.server !== undefined;

/**
 * The loss status already records for this gap (found after the last successful sync), so a held
 * stream, or a recreate that failed, is not announced again on every pass; undefined when none.
 */
export function recordedLoss(status: ObjectStatus | undefined): LostRecord | undefined {
  const lost = status?.lost;
  if (!lost) return undefined;
  // Held: Ready says so (the times below may share a second with the sync before the loss).
  if (findCondition(status?.conditions, "Ready")?.reason === JETSTREAM_REASONS.StreamLost) return lost;
  const synced = status?.lastSyncedTime ? Date.parse(status.lastSyncedTime) : 0;
  return Date.parse(lost.at) > synced ? lost : undefined;
}

/** The loss found at `at`, with what status last showed of the stream. */
export function lossOf(status: ObjectStatus | undefined, at: Date): LostRecord {
  const server = status?.server ?? {};
  return {
    at: at.toISOString().replace(/\.\d{3}Z$/, "Z"),
    lastKnown: {
      // status.server leaves messages out when there are none.
      messages: server.messages ?? 0,
      ...(server.bytes !== undefined ? { bytes: server.bytes } : {}),
      ...(server.lastSequence !== undefined ? { lastSequence: server.lastSequence } : {}),
    },
  };
}

function lastKnownText(lost: LostRecord): string {
  const { messages, bytes, lastSequence } = lost.lastKnown;
  const details = [
    ...(bytes !== undefined ? [bytes] : []),
    ...(lastSequence !== undefined ? [`last sequence ${lastSequence}`] : []),
  ];
  return `${messages ?? 0} messages${details.length ? ` (${details.join(", ")})` : ""}`;
}

/** The StreamLost message: what was last known, and what happens now. */
export function streamLostMessage(what: string, lost: LostRecord, hold: boolean): string {
  const gone = `${what}, last seen with ${lastKnownText(lost)}, is not found on the server`;
  return hold
    ? `${gone}; held by spec.onLoss Hold: set spec.onLoss to Recreate to recreate it empty`
    : `${gone}; recreating it empty (spec.onLoss Hold would hold it instead)`;
}

/** Where a consumer recreated from spec starts delivering, from its config. */
export function restartPosition(config: Wire): string {
  switch (config.deliver_policy ?? "all") {
    case "last":
      return "the last message of the stream (deliverPolicy Last)";
    case "new":
      return "messages published after it is recreated (deliverPolicy New)";
    case "by_start_sequence":
      return `stream sequence ${String(config.opt_start_seq)} (deliverPolicy ByStartSequence)`;
    case "by_start_time":
      return `the first message at or after ${String(config.opt_start_time)} (deliverPolicy ByStartTime)`;
    case "last_per_subject":
      return "the last message of each subject (deliverPolicy LastPerSubject)";
    default:
      return "the first message of the stream (deliverPolicy All)";
  }
}

/** The ConsumerLost message: a consumer that existed recreated from spec, and where it restarts. */
export function consumerLostMessage(what: string, config: Wire): string {
  return (
    `${what} is not found on the server; recreated from spec, it restarts from ${restartPosition(config)}, ` +
    "and its acknowledgements and redelivery state are lost"
  );
}

interface Limit {
  wire: string;
  spec: string;
  show(value: number): string;
  discards(value: string): string;
}

const count = (n: number) => String(n);
const limits: readonly Limit[] = [
  {
    wire: "max_bytes",
    spec: "maxBytes",
    show: bytesToQuantity,
    discards: (v) => `discards the oldest messages beyond ${v}`,
  },
  { wire: "max_msgs", spec: "maxMsgs", show: count, discards: (v) => `discards the oldest messages beyond ${v}` },
  {
    wire: "max_msgs_per_subject",
    spec: "maxMsgsPerSubject",
    show: count,
    discards: (v) => `discards the oldest messages of each subject beyond ${v}`,
  },
  { wire: "max_age", spec: "maxAge", show: nanosToDuration, discards: (v) => `discards the messages older than ${v}` },
];

const numberOr = (value: unknown, fallback: unknown): number | undefined => {
  const n = value ?? fallback;
  return typeof n === "number" ? n : undefined;
};

/**
 * What writing `config` over `server` discards: a limit lowered (to a limit from none, or below the
 * one held) and fewer replicas; one clause each, in an order fixed by the table.
 */
export function discardedBy(server: Wire, config: Wire, defaults: Wire): string[] {
  const clauses: string[] = [];
  for (const limit of limits) {
    const before = numberOr(server[limit.wire], defaults[limit.wire]);
    const after = numberOr(config[limit.wire], defaults[limit.wire]);
    if (before === undefined || after === undefined || after <= 0) continue; // none, or no limit
    if (before > 0 && after >= before) continue;
    const from = before > 0 ? limit.show(before) : "no limit";
    clauses.push(`lowering ${limit.spec} from ${from} to ${limit.show(after)} ${limit.discards(limit.show(after))}`);
  }
  const before = numberOr(server.num_replicas, defaults.num_replicas);
  const after = numberOr(config.num_replicas, defaults.num_replicas);
  if (before !== undefined && after !== undefined && after > 0 && after < before) {
    const dropped = before - after;
    clauses.push(
      `lowering replicas from ${before} to ${after} discards ${dropped === 1 ? "one copy" : `${dropped} copies`} of every message`,
    );
  }
  return clauses;
}
