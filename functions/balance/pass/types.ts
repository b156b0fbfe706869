// The vocabulary the three passes share: the Events a pass records, the moves it requests.
import type { StepdownTarget } from "../leaders/stepdown.ts";

export interface BalancerEvent {
  type: "Normal" | "Warning";
  reason: string;
  note: string;
}

/** The leader move to request, once the status write has claimed it. */
export interface MoveRequest {
  target: StepdownTarget;
  from: string;
  to: string;
  /** The connection's own account: its groups are stepped down without the `acc.` import. */
  ownAccount?: string;
  /** A placement move instead: the copy on `from` leaves, and the server picks where it lands (`to` is empty). */
  placement?: { cluster: string };
}

/** A stream of an account: what a move or a cancellation names. */
export interface StreamRef {
  account: string;
  stream: string;
}
