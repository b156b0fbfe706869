// Why the StatefulSet controller could not create a server's pod. A pod that the API server
// refuses (the namespace's Pod Security level, a quota, an admission webhook) leaves one trace:
// the FailedCreate Warning Event the controller records on the StatefulSet. It is read only for a
// server whose StatefulSet exists and whose pod does not.
//
// Which Event counts, kept simple: the newest FailedCreate of this StatefulSet (its uid, so not
// one of a StatefulSet deleted and made again under the name), and only when it was last seen no
// earlier than the StatefulSet last changed (the newest `managedFields` time outside the status
// subresource). Every change of the StatefulSet makes its controller try again at once, and a
// refusal it still meets is recorded again (the Event's count and lastTimestamp move on), so an
// older Event was about a template since replaced. Times are compared to the second, as the API
// server keeps them.
import type { Kube, KubeObject } from "../../../shared/kube/index.ts";
import type { FailedCreate, StatefulSet } from "./types.ts";

/** A core/v1 Event, as listed. */
export type CoreEvent = KubeObject & {
  involvedObject?: { kind?: string; name?: string; uid?: string };
  type?: string;
  reason?: string;
  message?: string;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { lastObservedTime?: string } | null;
};

const seconds = (time: string | null | undefined): number | undefined => {
  const at = time ? Date.parse(time) : NaN;
  return Number.isNaN(at) ? undefined : Math.floor(at / 1000);
};

/** When the StatefulSet last changed (status writes aside), in seconds; undefined when its managedFields do not say. */
export function lastChanged(statefulSet: StatefulSet): number | undefined {
  const times = (statefulSet.metadata.managedFields ?? [])
    .filter((entry) => !entry.subresource)
    .map((entry) => seconds(entry.time))
    .filter((time): time is number => time !== undefined);
  return times.length > 0 ? Math.max(...times) : undefined;
}

/** When the Event was last seen: by the events.k8s.io series, the core fields, or its creation. */
function lastSeen(event: CoreEvent): string | undefined {
  return (
    event.series?.lastObservedTime ??
    event.lastTimestamp ??
    event.eventTime ??
    event.firstTimestamp ??
    event.metadata.creationTimestamp ??
    undefined
  );
}

/** The StatefulSet's newest FailedCreate Event among `events`, when it is current (see above). */
export function currentFailedCreate(events: readonly CoreEvent[], statefulSet: StatefulSet): FailedCreate | undefined {
  const { name, uid } = statefulSet.metadata;
  const seen = events
    .filter(
      (e) =>
        e.type === "Warning" &&
        e.reason === "FailedCreate" &&
        e.involvedObject?.kind === "StatefulSet" &&
        e.involvedObject.name === name &&
        (uid === undefined || e.involvedObject.uid === undefined || e.involvedObject.uid === uid) &&
        e.message,
    )
    .map((e) => ({ message: e.message ?? "", at: lastSeen(e) ?? "" }))
    .filter((e) => seconds(e.at) !== undefined)
    .sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  const newest = seen[0];
  if (!newest) return undefined;
  const changed = lastChanged(statefulSet);
  return changed !== undefined && (seconds(newest.at) ?? 0) < changed ? undefined : newest;
}

/**
 * Reads the StatefulSet's FailedCreate Events and keeps the current one. Best effort: the cause
 * is told when it can be read, and a server without one reads as waiting, as it did before.
 */
export async function readFailedCreate(kube: Kube, statefulSet: StatefulSet): Promise<FailedCreate | undefined> {
  const { name, namespace } = statefulSet.metadata;
  try {
    const events = await kube.list<CoreEvent>({
      apiVersion: "v1",
      kind: "Event",
      ...(namespace !== undefined ? { namespace } : {}),
      fieldSelector: `involvedObject.kind=StatefulSet,involvedObject.name=${name},reason=FailedCreate`,
    });
    return currentFailedCreate(events, statefulSet);
  } catch {
    return undefined;
  }
}
