// What the object reconcile's steps pass each other: plain data from observe to decide, and the
// decision act carries out.
import type { EventType } from "../../../shared/kube/index.ts";
import type { Spec } from "../config/fields.ts";
import type { AccountRead } from "../jetstream/account.ts";
import type { ListedConsumer } from "../jetstream/transfer.ts";
import type { Plan } from "../plan/plan.ts";
import type { LostRecord, ObjectStatus, SyncResult } from "../plan/status.ts";
import type { Target } from "../targets/kinds.ts";
import type { JetStreamObject, ServerObject } from "../types.ts";

/** "event": a change notice (what was checked moments ago may be skipped); "tick": compare with the world now. */
export type Trigger = "event" | "tick";

/** A placement that is not there yet: the status says what it waits for. */
export type Unplaced = Extract<SyncResult, { kind: "connection" | "streamWaiting" }>;

/** What observe read: the object as read, and how far its placement and server object got. */
export type Observed = { readonly object: JetStreamObject } & (
  | { readonly kind: "unplaced"; readonly result: Unplaced }
  | { readonly kind: "specProblem"; readonly problem: string }
  | { readonly kind: "unreachable"; readonly message: string }
  /** A consumer whose stream is not on the server. */
  | { readonly kind: "streamMissing"; readonly target: Target }
  /** INFO failed (a NATS error, not "not found"). */
  | { readonly kind: "readFailed"; readonly target: Target; readonly message: string }
  | {
      readonly kind: "server";
      readonly target: Target;
      /** The server object, or undefined when it does not exist. */
      readonly server: ServerObject | undefined;
      /** The marker names another UID and a resource of this kind with that UID exists. */
      readonly foreignOwnerExists: boolean;
      /** A NatsKeyValue's account, read beside the bucket's stream: a write waits on it (J20). */
      readonly account?: AccountRead;
    }
);

/** An Event to record, once the status is written. */
export type Note = readonly [type: EventType, reason: string, message: string];

/** How a pass ends: the one status it writes, the Events after it, and its answer. */
export interface Finish {
  readonly status: ObjectStatus;
  readonly notes: readonly Note[];
  readonly answer:
    { readonly kind: "done"; readonly summary: string } | { readonly kind: "again"; readonly message: string };
  /** Only a Synced status can ask for the settle check (its group unsettled, or moving). */
  readonly unsettled?: boolean;
}

/** A JetStream write, and what the status shows after it. */
export interface SyncDecision {
  readonly kind: "sync";
  readonly summary: string;
  readonly target: Target;
  readonly plan: Extract<Plan, { kind: "create" | "update" | "recreate" | "settled" }>;
  /** The server object as observed (what a settled object still is after the pass). */
  readonly server: ServerObject | undefined;
  /** Adopt's claim: the server's config written into spec, guarded, before the server is touched. */
  readonly claim: Spec | undefined;
  /** Fill spec fields left out from the server's config once it is written (late initialisation). */
  readonly fill: boolean;
  /** The Events the write records once the status is written. */
  readonly notes: readonly Note[];
  /** A NatsStream's stream found gone: the record the status keeps, and the Warning (once per loss). */
  readonly lost?: { readonly record: LostRecord; readonly notes: readonly Note[] };
  /** The object as observed, and the moment decided at: the status after the write builds on them. */
  readonly object: JetStreamObject;
  readonly at: string;
}

export type Decision = { readonly kind: "finish"; readonly summary: string; readonly finish: Finish } | SyncDecision;

/** What act read back after the write, for the status. */
export interface AfterWrite {
  readonly server: ServerObject;
  /** For a stream moving between NATS clusters: its consumers, or why they could not be read. */
  readonly consumers?:
    { readonly ok: true; readonly list: readonly ListedConsumer[] } | { readonly ok: false; readonly why: string };
}
