import type { CloudEvent } from "cloudevents";
import type { KubeTransport, WatchEvent } from "../kube/transport.ts";
import type { KubeObject } from "../kube/object.ts";
import { resourcePath, resourceTypeOf } from "../kube/resource-types.ts";
import type { Logger } from "../telemetry/logger.ts";
import { apiServerEvent } from "./apiserver-event.ts";
import { selectorQuery, type WatchedResource } from "./manifests.ts";

const restartDelayMs = 2_000;

/**
 * Watches what the ApiServerSources in knative/ watch and emits the same
 * CloudEvents. Unlike the real adapter it first lists every object and emits
 * an add for each, so objects that exist when the runner starts are
 * reconciled; after a lost watch it lists again for the same reason.
 */
export function startApiServerSource(
  transport: KubeTransport,
  resources: readonly WatchedResource[],
  emit: (ce: CloudEvent<unknown>) => void,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  return Promise.all(resources.map((resource) => watchForever(transport, resource, emit, log, signal))).then(
    () => undefined,
  );
}

async function watchForever(
  transport: KubeTransport,
  resource: WatchedResource,
  emit: (ce: CloudEvent<unknown>) => void,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  const type = resourceTypeOf(resource.apiVersion, resource.kind);
  const collection = resourcePath(type, undefined);
  const labelSelector = selectorQuery(resource.selector);
  const query = labelSelector ? `labelSelector=${encodeURIComponent(labelSelector)}` : "";
  const passes = (object: KubeObject) => !resource.owner || ownedBy(object, resource.owner);
  const send = (action: "add" | "update" | "delete", object: KubeObject) => {
    const full = { ...object, apiVersion: resource.apiVersion, kind: resource.kind };
    if (passes(full)) emit(apiServerEvent(transport.server, resource.mode, action, full));
  };

  while (!signal.aborted) {
    try {
      const list = (await transport.request("GET", `${collection}${query ? `?${query}` : ""}`)) as {
        metadata: { resourceVersion: string };
        items: KubeObject[];
      };
      for (const item of list.items) send("add", item);
      let resourceVersion = list.metadata.resourceVersion;
      let expired = false;
      while (!signal.aborted && !expired) {
        const watchQuery = `watch=1&allowWatchBookmarks=true&resourceVersion=${resourceVersion}${query ? `&${query}` : ""}`;
        await transport.watch(
          `${collection}?${watchQuery}`,
          (event: WatchEvent) => {
            const object = event.object as unknown as KubeObject;
            if (event.type === "ERROR") {
              expired = true;
              return;
            }
            resourceVersion = object.metadata?.resourceVersion ?? resourceVersion;
            if (event.type === "ADDED") send("add", object);
            else if (event.type === "MODIFIED") send("update", object);
            else if (event.type === "DELETED") send("delete", object);
          },
          signal,
        );
      }
    } catch (error) {
      if (signal.aborted) return;
      log.warn({ err: error, kind: resource.kind }, "watch failed; listing again");
      await new Promise((resolve) => setTimeout(resolve, restartDelayMs));
    }
  }
}

function ownedBy(object: KubeObject, owner: { apiVersion: string; kind: string }): boolean {
  return (object.metadata.ownerReferences ?? []).some(
    (ref) => ref.controller === true && ref.apiVersion === owner.apiVersion && ref.kind === owner.kind,
  );
}
