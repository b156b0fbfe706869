// The object reconcile's reads: placement (connection, grant, a consumer's stream), the target
// config, the JetStream side, the server object, and whether a foreign owner still exists.
import type { Kube, KubeObject } from "../../../shared/kube/index.ts";
import { NatsApiError, NatsRequestError } from "../../../shared/nats/index.ts";
import type { AccountRead } from "../jetstream/account.ts";
import type { ConnectJetStream, JetStreamServer } from "../jetstream/server.ts";
import { isSpecProblem, jetstreamApiVersion } from "../targets/kinds.ts";
import { placementOf } from "../targets/placement.ts";
import type { JetStreamObject } from "../types.ts";
import { foreignOwner } from "./decide.ts";
import type { Observed } from "./types.ts";

/** What was observed, and the JetStream side reached on the way (for act, in the same pass). */
export interface Observation {
  readonly observed: Observed;
  readonly server?: JetStreamServer;
}

export async function observeObject(
  object: JetStreamObject,
  kube: Kube,
  connect: ConnectJetStream,
): Promise<Observation> {
  const placement = await placementOf(kube, object);
  if (!placement.ok) {
    return { observed: { object, kind: "unplaced", result: placement.result } };
  }
  const target = placement.target;
  if (isSpecProblem(target)) return { observed: { object, kind: "specProblem", problem: target.problem } };
  const reached = await connect(kube, placement.connection);
  if (!reached.ok) return { observed: { object, kind: "unreachable", message: reached.message } };
  const server = reached.server;
  try {
    // A bucket's account is read beside its stream, so a write decided from them waits on
    // neither; read on every pass, it costs one more request per bucket and drift check.
    const [info, account] = await Promise.all([
      server.info(target),
      target.kind === "NatsKeyValue" ? accountOf(server) : undefined,
    ]);
    if (!info.found && info.streamMissing && target.consumer !== undefined)
      return { observed: { object, kind: "streamMissing", target }, server };
    const found = info.found ? info.observed : undefined;
    const owner = foreignOwner(object, found);
    const foreignOwnerExists = owner === undefined ? false : await ownerExists(kube, object.kind, owner);
    return {
      observed: { object, kind: "server", target, server: found, foreignOwnerExists, ...(account ? { account } : {}) },
      server,
    };
  } catch (error) {
    if (error instanceof NatsApiError || error instanceof NatsRequestError)
      return { observed: { object, kind: "readFailed", target, message: error.message }, server };
    throw error;
  }
}

/** The account's JetStream, or why it could not be read: only a write needs it, and decide judges that. */
async function accountOf(server: JetStreamServer): Promise<AccountRead> {
  try {
    return { ok: true, account: await server.account() };
  } catch (error) {
    if (error instanceof NatsApiError || error instanceof NatsRequestError)
      return { ok: false, message: error.message };
    throw error;
  }
}

/** Whether a resource of this kind with this UID exists anywhere (the marker's owner is alive). */
async function ownerExists(kube: Kube, kind: string, uid: string): Promise<boolean> {
  const all = await kube.list<KubeObject>({ apiVersion: jetstreamApiVersion, kind });
  return all.some((o) => o.metadata.uid === uid);
}
