// What the NatsConnection reconcile's steps pass each other.
import type { Condition } from "../../../shared/kube/index.ts";
import type { ScheduleDecision } from "../../../shared/runtime/index.ts";
import type { Reason } from "../../../shared/api/index.ts";

/** Whether the servers answered, in the words the Ready condition uses. */
export interface Reach {
  readonly ok: boolean;
  readonly reason: Reason;
  readonly message: string;
}

export interface Observed {
  readonly namespace: string;
  readonly generation: number | undefined;
  readonly conditions: readonly Condition[] | undefined;
  readonly reach: Reach;
  /** The connect failed: the pooled client is dropped so the next try connects afresh. */
  readonly dropClient: boolean;
}

export interface Decision {
  readonly summary: string;
  readonly schedules: readonly ScheduleDecision[];
  readonly status: { readonly conditions: Condition[]; readonly observedGeneration: number | undefined };
  readonly dropClient: boolean;
  /** Ready turned True: the objects using the connection are told (they may be waiting on it). */
  readonly becameReady: boolean;
  readonly answer: { readonly kind: "done" | "again"; readonly message: string };
}
