// What a NatsOperator reconcile observes: its keys, its system account, its accounts' JWTs and
// what the servers still hold of its deleted accounts.
import type { KeysReading } from "../keys/read-keys.ts";
import type { NatsOperator, NatsSystemAccount, NatsUser } from "../objects.ts";
import type { DistributionReading, PushOutcome } from "../servers/types.ts";
import type { TrustReading } from "../servers/trust.ts";
import type { SignedAccountJwt } from "./retiring-keys.ts";

export type DeletionsReading =
  /** No system connection, or no deleted account to ask about. */
  | { kind: "off" }
  | { kind: "unreachable"; message: string }
  | {
      kind: "read";
      roster: string[];
      /** The deleted accounts some server answered its claims lookup with a JWT for. */
      held: string[];
      /** A delete request sent earlier in this delivery. */
      lastDelete?: PushOutcome;
    };

export interface OperatorObserved {
  kind: "NatsOperator";
  object: NatsOperator;
  keys: KeysReading;
  /** The NatsSystemAccount spec.systemAccountRef names, and its keys. */
  systemAccount?: { object: NatsSystemAccount; keys: KeysReading };
  /** Which of its deleted accounts the servers still hold, through the system connection. */
  deletions?: DeletionsReading;
  /** Keys of its accounts offering the jetstream-stepdown services, which its system account imports. */
  stepdownAccounts?: string[];
  /** The JWTs its accounts' statuses hold, to tell whether a retiring signing key still signs one. */
  accountJwts?: SignedAccountJwt[];
  /** The NatsUsers of its system account: the deleted ones and their replaced keys are revoked. */
  systemUsers?: NatsUser[];
  /**
   * What the servers hold of the system account's JWT, read (through the system connection) only
   * while its revocations are to be recovered: its status lost them, or RevocationsUnrecovered.
   */
  systemRecovery?: DistributionReading;
  /** Which operator signing keys each server trusts (VARZ), read whenever a system connection is configured. */
  trust?: TrustReading;
}
