// An account's `limits` as the account JWT states them. nats-server reads a limit left out of a
// JWT as zero, so every limit is written, -1 where the spec leaves it out or sets it to 0; a
// JetStream limit is written only with `limits.jetstream`, whose absence disables JetStream.
import type { AccountLimits } from "../../../shared/api/index.ts";
import { parseBytes } from "../../../shared/units/index.ts";

type Quantity = string | number | undefined;
export type JwtLimits = Record<string, number | boolean | Record<string, Record<string, number | boolean>>>;

/** The account-wide limits of an account that states none: everything allowed, no JetStream. */
export const UNLIMITED_ACCOUNT = {
  subs: -1,
  data: -1,
  payload: -1,
  conn: -1,
  leaf: -1,
  imports: -1,
  exports: -1,
  wildcards: true,
} as const;

export type LimitsResult = { ok: true; limits: JwtLimits } | { ok: false; message: string };

class LimitError extends Error {}

const count = (field: string, value: number | undefined): number => {
  if (value === undefined || value === 0) return -1;
  if (value < 0) throw new LimitError(`limits.${field} is negative`);
  return value;
};

const bytes = (field: string, value: Quantity): number => {
  if (value === undefined) return -1;
  const parsed = parseBytes(value);
  if (parsed === undefined) throw new LimitError(`limits.${field} is not a quantity`);
  return parsed === 0n ? -1 : Number(parsed);
};

type JetStreamSpec = Omit<NonNullable<AccountLimits["jetstream"]>, "tiers">;

function jetstreamLimits(prefix: string, js: JetStreamSpec): Record<string, number | boolean> {
  return {
    mem_storage: bytes(`${prefix}.memoryStorage`, js.memoryStorage),
    disk_storage: bytes(`${prefix}.diskStorage`, js.diskStorage),
    streams: count(`${prefix}.streams`, js.streams),
    consumer: count(`${prefix}.consumers`, js.consumers),
    max_ack_pending: count(`${prefix}.maxAckPending`, js.maxAckPending),
    mem_max_stream_bytes: bytes(`${prefix}.memoryMaxStreamBytes`, js.memoryMaxStreamBytes),
    disk_max_stream_bytes: bytes(`${prefix}.diskMaxStreamBytes`, js.diskMaxStreamBytes),
    ...(js.maxBytesRequired ? { max_bytes_required: true } : {}),
  };
}

/** The JWT `limits` claim of an account's spec limits (pure). */
export function jwtLimits(limits: AccountLimits | undefined): LimitsResult {
  try {
    const base: JwtLimits = {
      ...UNLIMITED_ACCOUNT,
      conn: count("connections", limits?.connections),
      subs: count("subscriptions", limits?.subscriptions),
      payload: bytes("payload", limits?.payload),
    };
    const js = limits?.jetstream;
    if (!js) return { ok: true, limits: base };
    const { tiers, ...accountWide } = js;
    if (tiers && tiers.length > 0) {
      const tiered = Object.fromEntries(
        tiers.map(({ name, ...tier }) => [name, jetstreamLimits(`jetstream.tiers[${name}]`, tier)]),
      );
      return { ok: true, limits: { ...base, tiered_limits: tiered } };
    }
    return { ok: true, limits: { ...base, ...jetstreamLimits("jetstream", accountWide) } };
  } catch (error) {
    if (error instanceof LimitError) return { ok: false, message: error.message };
    throw error;
  }
}
