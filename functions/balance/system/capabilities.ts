// What the balancer can move: a leader move in an account goes through the system account's
// import of that account's jetstream-stepdown export, so an account without it cannot be evened.
import type { Capabilities } from "./resource.ts";

/** Which accounts answered the stepdown probe (both the stream and the consumer subject). */
export type Reach = ReadonlyMap<string, boolean>;

/**
 * `leader` over the accounts holding streams in scope: Full when every one can be reached, None
 * when none can, Partial otherwise; unset when leader moves are off. `placement` is false here:
 * decide sets it from `moves.placement` (the system account may move any account's copies).
 */
export function capabilitiesOf(accounts: readonly string[], reach: Reach | undefined): Capabilities {
  if (!reach) return { placement: false };
  const missing = accounts.filter((a) => reach.get(a) !== true);
  if (missing.length === 0) return { placement: false, leader: "Full" };
  const leader = missing.length === accounts.length ? "None" : "Partial";
  const shown = missing.slice(0, 3).join(", ") + (missing.length > 3 ? ", …" : "");
  return {
    placement: false,
    leader,
    leaderReason: `${missing.length} of ${accounts.length} accounts carry no jetstream-stepdown export the system account imports: ${shown}`,
  };
}
