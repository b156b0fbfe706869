// What a system balancer's pass comes to: the vocabulary of its decide, act and lease steps.
import type { Poll } from "../../../shared/runtime/index.ts";
import type { LeaseWrite } from "../pass/lease-decision.ts";
import type { BalancerEvent, MoveRequest } from "../pass/types.ts";
import type { NatsSystemBalancerStatus } from "./resource.ts";

export interface Decision {
  /** The whole status this balancer owns, written guarded by the resourceVersion read: the claim of the move. */
  status: NatsSystemBalancerStatus;
  move?: MoveRequest;
  events: BalancerEvent[];
  poll: Poll;
  summary: string;
  /** The move lease to take or renew before the claim, or let go after it. */
  lease?: LeaseWrite;
}
