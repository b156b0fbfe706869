import { randomUUID } from "node:crypto";
import { CloudEvent } from "cloudevents";
import type { PingSourceSpec } from "../runtime/schedule-source.ts";

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
