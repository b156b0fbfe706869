// What one reconcile of an auth object decides: plain data, acted on by act.ts.
import type { ScheduleDecision } from "../../shared/runtime/index.ts";
import type { SignRequest } from "./jwt/claims.ts";
import type { ExportToken } from "./wiring/export-tokens.ts";
import type { SeedToGenerate } from "./keys/key-verdict.ts";
import type {
  NatsAccount,
  NatsAccountTrust,
  NatsOperator,
  NatsOperatorTrust,
  NatsSystemAccount,
  NatsUser,
} from "./objects.ts";

export interface AuthEvent {
  type: "Normal" | "Warning";
  reason: string;
  note: string;
}

/** Where a signed JWT goes: the status field, or the user's creds Secret. */
export type SignTarget = "jwt" | "systemAccount.jwt" | "creds";

export interface SignStep {
  request: SignRequest;
  into: SignTarget;
  /** Activation tokens signed first, each into the claims' `nats.imports[index].token`. */
  activations?: { index: number; request: SignRequest }[];
}

/** The creds Secret of a user to (re)write, with the JWT the `creds` sign step makes. */
export interface CredsWrite {
  secret: string;
  key: string;
  /** The user's key: the seed already in the Secret, or one act generates (the claims' sub is then filled in by act). */
  userKey: { kind: "held"; publicKey: string } | { kind: "generate" };
  /** The Secret as read, when it exists: its write is guarded by this resourceVersion. */
  resourceVersion?: string;
}

/** `$SYS.REQ.CLAIMS.DELETE` for deleted accounts, a generic JWT self-signed by an operator key. */
export interface DeleteRequest {
  /** The operator's active signing key (or its identity): subject and issuer of the request. */
  signer: string;
  accounts: string[];
}

/** An entry for the operator's `status.deletedAccounts`, merged in by act (kept if already there). */
export interface DeletedAccountRecord {
  operator: { namespace: string; name: string };
  publicKey: string;
  /** When the deleted account's last JWT expires; never when omitted. */
  expires?: string;
}

/** One client connection of a server: `$SYS.REQ.SERVER.<server>.KICK` with `{"cid": cid}` closes it. */
export interface Kick {
  server: string;
  cid: number;
}

interface DecisionOf<K extends string, T extends { status?: unknown }> {
  kind: K;
  object: T;
  /** Seed Secrets to create; when any, nothing else happens and the object is observed again. */
  generate: SeedToGenerate[];
  /** The whole status to write, guarded by the resourceVersion read (the claim of everything below). */
  status: NonNullable<T["status"]>;
  sign: SignStep[];
  creds?: CredsWrite;
  /**
   * A creds Secret the user owns, emptied after the status write (guarded by this resourceVersion):
   * the user gave its key up (its grant went, or its new key was refused) and the key is revoked.
   */
  clearCreds?: { secret: string; resourceVersion: string };
  events: AuthEvent[];
  /** Push the JWT status holds to every server once the status write held (an account, with a system connection). */
  push?: boolean;
  /** The JWT to push when status does not hold it: a system account's, signed into its operator's status. */
  jwt?: string;
  /**
   * The object's finalizer (a NatsAccount's delete, a NatsUser's revoke): the account's added with
   * its first push and removed once the delete is confirmed; the user's added once it is signed and
   * removed once its key is revoked everywhere and its connections are closed.
   */
  finalizer?: "add" | "remove";
  /** Live connections of a deleted user to close, after the claim. */
  kicks?: Kick[];
  /** A delete request to send after the claim (a deleted account still held by some server). */
  deleteRequest?: DeleteRequest;
  /** Activation tokens of an account's private exports, signed by act into status.exports before the write. */
  exportTokens?: ExportToken[];
  /** Recorded in the operator's status before the delete request is sent. */
  recordDeleted?: DeletedAccountRecord;
  /**
   * A key live again (an account re-admitted) taken off the operator's status.deletedAccounts
   * before its JWT is pushed, so the operator's watch does not delete it again.
   */
  forgetDeleted?: Omit<DeletedAccountRecord, "expires">;
  schedules: ScheduleDecision[];
  summary: string;
}

export type OperatorDecision = DecisionOf<"NatsOperator", NatsOperator>;
export type SystemAccountDecision = DecisionOf<"NatsSystemAccount", NatsSystemAccount>;
export type AccountDecision = DecisionOf<"NatsAccount", NatsAccount>;
export type UserDecision = DecisionOf<"NatsUser", NatsUser>;
export type TrustDecision = DecisionOf<"NatsOperatorTrust", NatsOperatorTrust>;
export type AccountTrustDecision = DecisionOf<"NatsAccountTrust", NatsAccountTrust>;

export type Decision =
  OperatorDecision | SystemAccountDecision | AccountDecision | UserDecision | TrustDecision | AccountTrustDecision;
