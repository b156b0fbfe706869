// The wire of an evacuation's moves, as the system user: `$JS.API.ACCOUNT.STREAM.MOVE` with the
// target tags as ephemeral placement (the stream's config is not rewritten; the server picks any
// NATS cluster whose servers carry them, and consumers follow), and `CANCEL_MOVE` to roll one back.
import type { NatsConnection } from "@nats-io/transport-node";
import { ErrCodes, jsApiTimeoutMs, NatsApiError, systemRequest } from "../../../shared/nats/index.ts";
import type { StreamRef } from "../pass/types.ts";

/** "stream reconfiguration not in progress": nothing to cancel. */
const NO_MOVE_IN_PROGRESS = 10129;

/** Asks the meta leader to move the stream onto servers carrying `tags`; throws NatsApiError or NatsRequestError. */
export async function requestMove(nc: NatsConnection, move: StreamRef, tags: readonly string[]): Promise<void> {
  await systemRequest(nc, `$JS.API.ACCOUNT.STREAM.MOVE.${move.account}.${move.stream}`, { tags }, jsApiTimeoutMs);
}

/**
 * A balancer's placement move: the copy on `server` leaves, and the meta leader picks a landing in
 * `cluster` that carries the stream's own placement tags. Throws NatsApiError or NatsRequestError.
 */
export async function requestCopyMove(
  nc: NatsConnection,
  move: StreamRef,
  server: string,
  cluster: string,
): Promise<void> {
  await systemRequest(
    nc,
    `$JS.API.ACCOUNT.STREAM.MOVE.${move.account}.${move.stream}`,
    { server, cluster },
    jsApiTimeoutMs,
  );
}

/** Cancels the stream's move; false when there was none to cancel (done, or the stream is gone). */
export async function cancelMove(nc: NatsConnection, move: StreamRef): Promise<boolean> {
  try {
    await systemRequest(nc, `$JS.API.ACCOUNT.STREAM.CANCEL_MOVE.${move.account}.${move.stream}`, {}, jsApiTimeoutMs);
    return true;
  } catch (error) {
    if (
      error instanceof NatsApiError &&
      (error.errCode === NO_MOVE_IN_PROGRESS || error.errCode === ErrCodes.streamNotFound)
    )
      return false;
    throw error;
  }
}
