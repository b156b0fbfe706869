// The account's JetStream as `$JS.API.INFO` tells it, read before a key-value bucket is written
// (J20): nats.go's CreateKeyValue and UpdateKeyValue ask it first, to learn that JetStream is
// enabled for the account and, for a bucket with a limit-marker TTL, that the server's JetStream
// API level is at least 1 (nats-server 2.11).
import type { NatsConnection } from "@nats-io/transport-node";
import { jsRequest } from "../../../shared/nats/index.ts";

/** What a bucket write needs to know of the account's JetStream. */
export interface JetStreamAccount {
  /** The JetStream API level the server speaks (`api.level`; 0 before nats-server 2.11). */
  readonly apiLevel: number;
}

/** `$JS.API.INFO` as read for a key-value bucket: the account's JetStream, or why it was not read. */
export type AccountRead =
  { readonly ok: true; readonly account: JetStreamAccount } | { readonly ok: false; readonly message: string };

export async function readAccount(nc: NatsConnection): Promise<JetStreamAccount> {
  const info = await jsRequest<{ api?: { level?: unknown } }>(nc, "INFO");
  const level = info.api?.level;
  return { apiLevel: typeof level === "number" ? level : 0 };
}
