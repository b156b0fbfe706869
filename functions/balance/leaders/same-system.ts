// Whether two connections reach the same NATS system. Server names repeat across systems (every
// team's `nats` has a `nats-0`); server IDs do not, and a server answers
// `$SYS.REQ.SERVER.<id>.JSZ` only to a system user of its own system. So the system user on one
// connection asks for the server the other is connected to.
import type { NatsConnection } from "@nats-io/transport-node";
import { serverRequest } from "../../../shared/nats/index.ts";

/** Whether the server `theirs` is connected to answers the system user on `mine`. */
export async function reachesServerOf(mine: NatsConnection, theirs: NatsConnection): Promise<boolean> {
  const id = theirs.info?.server_id;
  if (!id) return false;
  try {
    await serverRequest(mine, id, "JSZ");
    return true;
  } catch {
    return false;
  }
}
