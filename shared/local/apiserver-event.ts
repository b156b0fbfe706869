import { randomUUID } from "node:crypto";
import { CloudEvent } from "cloudevents";
import type { ObjectAction } from "../runtime/event.ts";
import type { KubeObject } from "../kube/object.ts";
import { resourceTypeOf } from "../kube/resource-types.ts";

/**
 * The CloudEvent an ApiServerSource adapter sends for a change of `object`:
 * same type, source, subject, extensions and payload, so functions cannot
 * tell the local runner from Knative.
 */
export function apiServerEvent(
  server: string,
  mode: "Resource" | "Reference",
  action: ObjectAction,
  object: KubeObject,
): CloudEvent<unknown> {
  const { apiVersion, kind } = object;
  const { name, namespace = "" } = object.metadata;
  const type = resourceTypeOf(apiVersion, kind);
  const prefix = type.group === "" ? `/apis/v1` : `/apis/${apiVersion}`;
  return new CloudEvent<unknown>({
    id: randomUUID(),
    type: `dev.knative.apiserver.${mode === "Resource" ? "resource" : "ref"}.${action}`,
    source: server,
    subject: `${prefix}/namespaces/${namespace}/${type.plural}/${name}`,
    datacontenttype: "application/json",
    data: mode === "Resource" ? object : { apiVersion, kind, name, namespace },
    kind,
    apiversion: apiVersion,
    name,
    namespace,
  });
}
