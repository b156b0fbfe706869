// `kubectl nats-operator status <kind>/<name>`: reads the object through the API server and prints
// what its status says (status-report.ts). Read only.
import type { ResourceOf } from "../api/index.ts";
import type { Kube, KubeObject } from "../kube/index.ts";
import type { ResourceRef } from "./resource-ref.ts";
import { accountReport, clusterReport, formatStatus, streamReport, type StatusReport } from "./status-report.ts";

export const STATUS_KINDS = ["NatsCluster", "NatsStream", "NatsAccount"] as const;

/** The object's report; an Error naming what is missing when it does not exist or has no report. */
export async function readStatus(kube: Kube, namespace: string, ref: ResourceRef): Promise<StatusReport> {
  const key = { apiVersion: ref.kind.apiVersion, kind: ref.kind.kind, namespace, name: ref.name };
  const object = await kube.get<KubeObject>(key);
  if (!object) throw new Error(`${ref.kind.kind} ${namespace}/${ref.name} not found`);
  switch (ref.kind.kind) {
    case "NatsCluster":
      return clusterReport(object as KubeObject & ResourceOf<"NatsCluster">);
    case "NatsStream":
      return streamReport(object as KubeObject & ResourceOf<"NatsStream">);
    case "NatsAccount":
      return accountReport(object as KubeObject & ResourceOf<"NatsAccount">);
    default:
      throw new Error(`status shows ${STATUS_KINDS.join(", ")}; not ${ref.kind.kind}`);
  }
}

export async function statusCommand(
  kube: Kube,
  namespace: string,
  ref: ResourceRef,
  json: boolean,
  out: (text: string) => void,
): Promise<void> {
  const report = await readStatus(kube, namespace, ref);
  out(json ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report));
}
