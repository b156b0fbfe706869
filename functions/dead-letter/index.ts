// dead-letter: where the Broker and the Triggers send an event they gave up on (after their
// retries, or at once for an answer they never retry). It tells the user on the object the event
// named, with a Warning Event `EventDropped`, and logs the event's attributes (never its data: a
// Resource-mode payload is the whole object). The object is reconciled again by the next resync.
import type { CloudEvent } from "cloudevents";
import { KINDS } from "../../shared/api/index.ts";
import type { KubeObject } from "../../shared/kube/index.ts";
import { done, type OperatorFunction } from "../../shared/runtime/index.ts";
import { droppedNote, regardingOf } from "./dropped.ts";

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
    await (await context.recorder()).record(regarding, "Warning", "EventDropped", note, "Deliver");
    return done(
      `dropped event recorded on ${regarding.kind} ${regarding.metadata.namespace}/${regarding.metadata.name}`,
    );
  },
};
