// Whether a key-value bucket may be written, from what `$JS.API.INFO` said of its account (J20),
// pure. nats.go asks it before every CreateKeyValue and UpdateKeyValue: an account without
// JetStream fails the write, and a limit-marker TTL on a server below JetStream API level 1
// (before nats-server 2.11) is refused before it is sent (ErrLimitMarkerTTLNotSupported), which
// the reference reports as Terminal `Rejected`. A bucket that needs no write asks nothing of it.
import type { AccountRead } from "../jetstream/account.ts";
import type { Target } from "../targets/kinds.ts";

/** The JetStream API level that brought per-message TTLs, which limit markers are. */
export const limitMarkerApiLevel = 1;

/** Why the write is not made: refused for good, or failed and retried. */
export type BucketHold = { readonly kind: "rejected" | "failed"; readonly message: string };

export function bucketWriteHold(target: Target, account: AccountRead | undefined): BucketHold | undefined {
  if (target.kind !== "NatsKeyValue") return undefined;
  if (!account) return { kind: "failed", message: "the account's JetStream ($JS.API.INFO) was not read" };
  if (!account.ok) return { kind: "failed", message: `$JS.API.INFO: ${account.message}` };
  const markerTTL = target.desired.subject_delete_marker_ttl;
  const level = account.account.apiLevel;
  if (typeof markerTTL === "number" && markerTTL !== 0 && level < limitMarkerApiLevel)
    return {
      kind: "rejected",
      message:
        `limit marker TTLs not supported by server: limitMarkerTTL needs JetStream API level ` +
        `${limitMarkerApiLevel} (nats-server 2.11), the server speaks level ${level}`,
    };
  return undefined;
}
