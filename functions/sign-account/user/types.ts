// What a NatsUser reconcile observes: its creds, its account, and for a deleted user its live
// connections and what kicking them came to.
import type { Kick } from "../decision.ts";
import type { KeysReading } from "../keys/read-keys.ts";
import type { NatsAccount, NatsSystemAccount, NatsUser } from "../objects.ts";

/** What a kick request got: how many connections closed, and each failure as "<server>: <why>". */
export interface KickOutcome {
  kicked: number;
  failed: string[];
}

export type ConnectionsReading =
  /** No system connection: the servers are not asked, nothing is kicked. */
  | { kind: "off" }
  | { kind: "unreachable"; message: string }
  | {
      kind: "read";
      /** Server IDs that answered STATSZ. */
      roster: string[];
      /** Server IDs that answered the CONNZ request. */
      answered: string[];
      /** The user's open connections, per server. */
      connections: Kick[];
      /** Kicks sent earlier in this delivery, observed again after them. */
      lastKick?: KickOutcome;
    };

/** A user's creds Secret as found. */
export type CredsReading =
  | { kind: "none" }
  | { kind: "foreign" }
  | { kind: "unreadable"; resourceVersion?: string }
  | { kind: "held"; publicKey: string; jwt: string; resourceVersion?: string };

export interface UserObserved {
  kind: "NatsUser";
  object: NatsUser;
  admitted: boolean;
  account?: { object: NatsAccount | NatsSystemAccount; keys: KeysReading };
  /**
   * The JWT that revokes the user's given-up keys: its NatsAccount's status.jwt, or the JWT of its
   * NatsSystemAccount in that account's NatsOperator's status.
   */
  accountJwt?: string;
  creds: CredsReading;
  /** The other NatsUsers of the same account, read only for a user naming its key in spec.publicKey. */
  siblings: NatsUser[];
  /** Whether a system connection is configured: without one nothing is pushed, and creds are Ready once signed. */
  systemConnection?: boolean;
  /** Whether the NatsOperator of the user's NatsAccount exists (read for a user being deleted). */
  operatorExists?: boolean;
  /** A deleted user's live connections, through the system connection (read for a user being deleted). */
  connections?: ConnectionsReading;
  /** Whether the system connection dials with the deleted user's key (read for a user being deleted). */
  systemConnectionUser?: boolean;
}
