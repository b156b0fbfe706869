// Deleting a resource: its deletionPolicy decides what happens on the server.
import { KubeRequestError } from "../../../shared/kube/errors.ts";
import { hasFinalizer, removeFinalizer } from "../../../shared/kube/finalizers.ts";
import { NatsApiError, NatsRequestError } from "../../../shared/nats/request.ts";
import { done, retry, skipped, type Outcome } from "../../../shared/runtime/outcome.ts";
import { deleteObject } from "../jetstream/act.ts";
import { connectWith } from "../../../shared/nats/connection.ts";
import { finalizer, note, type SyncDeps } from "../context.ts";
import { isSpecProblem } from "../targets/kinds.ts";
import { readMarker } from "../config/marker.ts";
import { observe } from "../jetstream/observe.ts";
import { placementOf, type JetStreamObject } from "../targets/placement.ts";

export async function finalizeObject(deps: SyncDeps, object: JetStreamObject): Promise<Outcome> {
  if (!hasFinalizer(object, finalizer)) return skipped("being deleted; nothing of ours holds it");
  const release = async (why: string): Promise<Outcome> => {
    try {
      await removeFinalizer(deps.kube, object, finalizer);
    } catch (error) {
      if (error instanceof KubeRequestError && error.isNotFound) return done(why);
      throw error;
    }
    return done(why);
  };

  const policy = object.spec.deletionPolicy ?? (object.kind === "NatsConsumer" ? "Delete" : "Retain");
  if (policy === "Retain") return release("deletionPolicy Retain: the server object stays");

  const placement = await placementOf(deps, object, true);
  if (!placement.ok) {
    const sync = placement.result;
    // A connection that is gone or no longer admitted releases without running the policy.
    if (sync.kind === "connection" || (sync.kind === "streamWaiting" && sync.reason === "StreamNotFound")) {
      await note(deps, object, "Normal", "Released", `released without deleting the server object: ${sync.message}`);
      return release(`released: ${sync.message}`);
    }
    return retry(`cannot delete yet: ${"message" in sync ? sync.message : sync.kind}`);
  }
  const target = placement.target;
  if (isSpecProblem(target)) return release(`nothing to delete: ${target.problem}`);

  const connected = await connectWith(deps.kube, deps.pool, placement.connection);
  if (!connected.ok) return retry(`cannot delete ${target.model.what}: ${connected.message}`);
  try {
    const observation = await observe(connected.nc, target);
    if (observation.found && readMarker(observation.observed.config.metadata).owner === object.metadata.uid) {
      await deleteObject(connected.nc, target);
      await note(deps, object, "Normal", "Deleted", `deleted ${target.model.what}`);
      return release(`deleted ${target.model.what}`);
    }
  } catch (error) {
    if (error instanceof NatsApiError || error instanceof NatsRequestError)
      return retry(`cannot delete ${target.model.what}: ${error.message}`);
    throw error;
  }
  return release(`${target.model.what} is absent or not ours: nothing to delete`);
}
