import { randomUUID } from "node:crypto";
import { CloudEvent } from "cloudevents";

/** The parts of a PingSource (sources.knative.dev/v1) that shape its events. */
export interface PingSourceSpec {
  schedule?: string;
  /** The zone the schedule is read in; the operator always writes UTC, which is all the local runner reads. */
  timezone?: string;
  contentType?: string;
  data?: string;
  ceOverrides?: { extensions?: Record<string, string> };
}

/** The CloudEvent the PingSource adapter sends on a tick of `namespace/name`. */
export function pingEvent(namespace: string, name: string, spec: PingSourceSpec): CloudEvent<unknown> {
  return new CloudEvent<unknown>({
    id: randomUUID(),
    type: "dev.knative.sources.ping",
    source: `/apis/v1/namespaces/${namespace}/pingsources/${name}`,
    datacontenttype: spec.contentType ?? "application/json",
    data: spec.data ?? "",
    ...(spec.ceOverrides?.extensions ?? {}),
  });
}
