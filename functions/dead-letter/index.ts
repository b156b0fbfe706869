// dead-letter: where the Broker and the Triggers send an event they gave up on (after their
// retries, or at once for an answer they never retry). It tells the user on the object the event
// named, with a Warning Event `EventDropped`, and logs the event's attributes (never its data: a
// Resource-mode payload is the whole object). The object is reconciled again by the next resync.
// Its endpoint is reachable by more than the Broker (SECURITY.md), so it reads the object back
// before recording: an event naming no object that exists writes nothing but a log line.
import type { CloudEvent } from "cloudevents";
import { KINDS } from "../../shared/api/index.ts";
import { keyOf, KubeRequestError, type Kube, type KubeObject } from "../../shared/kube/index.ts";
import { done, type OperatorFunction } from "../../shared/runtime/index.ts";
import { droppedNote, isSecret, recordOn, regardingOf } from "./dropped.ts";

export const deadLetter: OperatorFunction = {
  name: "dead-letter",
  // Whatever a Trigger may route: every kind of ours and the children the sources watch.
  kinds: [...Object.values(KINDS).map((k) => `${k.kind}.${k.group}`), "StatefulSet.apps", "Secret."],
  handlesPings: true,
  async handle(context, cloudEvent: CloudEvent<unknown>) {
    const regarding: KubeObject | undefined = regardingOf(context.event);
    const note = droppedNote(cloudEvent);
    context.log.warn(
      {
        droppedId: cloudEvent.id,
        droppedType: cloudEvent.type,
        errorCode: cloudEvent["knativeerrorcode"],
        errorDest: cloudEvent["knativeerrordest"],
      },
      note,
    );
    if (regarding === undefined) return done("dropped event logged; it names no object");
    if (isSecret(regarding)) return done("dropped event logged; Secrets are not read, so nothing is recorded on one");
    const target = recordOn(regarding, await readBack(await context.kube(), regarding));
    if (target === undefined) return done("dropped event logged; the object it names does not exist");
    await (await context.recorder()).record(target, "Warning", "EventDropped", note, "Deliver");
    return done(`dropped event recorded on ${target.kind} ${target.metadata.namespace}/${target.metadata.name}`);
  },
};

/** The named object as the API server has it; a kind dead-letter may not read counts as absent. */
async function readBack(kube: Kube, named: KubeObject): Promise<KubeObject | undefined> {
  try {
    return await kube.get(keyOf(named));
  } catch (error) {
    if (error instanceof KubeRequestError && error.code === 403) return undefined;
    throw error;
  }
}
