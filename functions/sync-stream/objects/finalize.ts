// Deleting a resource: its deletionPolicy decides what happens on the server.
import { hasFinalizer, type Kube, KubeRequestError, removeFinalizer } from "../../../shared/kube/index.ts";
import { NatsApiError, NatsRequestError } from "../../../shared/nats/index.ts";
import type { Acted } from "../../../shared/runtime/index.ts";
import { finalizer, note, type Notes } from "../context.ts";
import { readMarker } from "../config/marker.ts";
import type { ConnectJetStream } from "../jetstream/server.ts";
import { isSpecProblem } from "../targets/kinds.ts";
import { placementOf } from "../targets/placement.ts";
import type { JetStreamObject } from "../types.ts";

export interface FinalizeContext extends Notes {
  readonly kube: Kube;
}

const again = (message: string): Acted => ({ kind: "again", message });

export async function finalizeObject(
  object: JetStreamObject,
  context: FinalizeContext,
  connect: ConnectJetStream,
): Promise<Acted> {
  if (!hasFinalizer(object, finalizer)) return { kind: "skipped", reason: "being deleted; nothing of ours holds it" };
  const release = async (why: string): Promise<Acted> => {
    try {
      await removeFinalizer(context.kube, object, finalizer);
    } catch (error) {
      if (error instanceof KubeRequestError && error.isNotFound) return { kind: "done", summary: why };
      throw error;
    }
    return { kind: "done", summary: why };
  };

  const policy = object.spec.deletionPolicy ?? (object.kind === "NatsConsumer" ? "Delete" : "Retain");
  if (policy === "Retain") return release("deletionPolicy Retain: the server object stays");

  const placement = await placementOf(context.kube, object, true);
  if (!placement.ok) {
    const sync = placement.result;
    // A connection that is gone or no longer admitted releases without running the policy.
    if (sync.kind === "connection" || (sync.kind === "streamWaiting" && sync.reason === "StreamNotFound")) {
      await note(context, object, "Normal", "Released", `released without deleting the server object: ${sync.message}`);
      return release(`released: ${sync.message}`);
    }
    return again(`cannot delete yet: ${sync.message}`);
  }
  const target = placement.target;
  if (isSpecProblem(target)) return release(`nothing to delete: ${target.problem}`);

  const reached = await connect(context.kube, placement.connection);
  if (!reached.ok) return again(`cannot delete ${target.model.what}: ${reached.message}`);
  try {
    const observation = await reached.server.info(target);
    if (observation.found && readMarker(observation.observed.config.metadata).owner === object.metadata.uid) {
      await reached.server.remove(target);
      await note(context, object, "Normal", "Deleted", `deleted ${target.model.what}`);
      return release(`deleted ${target.model.what}`);
    }
  } catch (error) {
    if (error instanceof NatsApiError || error instanceof NatsRequestError)
      return again(`cannot delete ${target.model.what}: ${error.message}`);
    throw error;
  }
  return release(`${target.model.what} is absent or not ours: nothing to delete`);
}
