import type { CloudEvent } from "cloudevents";
import { isKubeRequestError } from "../kube/errors.ts";
import type { KubeTransport, WatchEvent } from "../kube/transport.ts";
import type { KubeObject } from "../kube/object.ts";
import { resourcePath, resourceTypeOf } from "../kube/resource-types.ts";
import type { Logger } from "../telemetry/logger.ts";
import { apiServerEvent } from "./apiserver-event.ts";
import { selectorQuery, type WatchedResource } from "./manifests.ts";

const restartDelayMs = 2_000;

/** How the in-process source differs from the adapter, and when it watches. */
export interface SourceOptions {
  /**
   * Emit an add for every object a listing finds (at the start and after a lost watch). Off by
   * default, as the adapter does: its store ignores the reflector's Replace, so objects that exist
   * when it starts or relists reach no function, and only the resync recovers what changed then.
   */
  listedAdds?: boolean;
  /**
   * Called once every resource has been listed, or has failed its first listing for good (a kind
   * the API server does not serve): from then on, changes are watched. A transient failure (a
   * 429 while a new CRD's storage initializes) is retried first, since an object made while the
   * source lists again would reach no function.
   */
  synced?: () => void;
}

/**
 * Watches what the ApiServerSources in knative/ watch and emits the same CloudEvents: the watch's
 * changes only, as the adapter does (`listedAdds` for an add of every listed object as well).
 */
export function startApiServerSource(
  transport: KubeTransport,
  resources: readonly WatchedResource[],
  emit: (ce: CloudEvent<unknown>) => void,
  log: Logger,
  signal: AbortSignal,
  options: SourceOptions = {},
): Promise<void> {
  let unlisted = resources.length;
  if (unlisted === 0) options.synced?.();
  const listed = () => {
    if (--unlisted === 0) options.synced?.();
  };
  return Promise.all(
    resources.map((resource) =>
      watchForever(transport, resource, emit, log, signal, options.listedAdds === true, once(listed)),
    ),
  ).then(() => undefined);
}

const once = (f: () => void) => {
  let called = false;
  return () => {
    if (!called) f();
    called = true;
  };
};

async function watchForever(
  transport: KubeTransport,
  resource: WatchedResource,
  emit: (ce: CloudEvent<unknown>) => void,
  log: Logger,
  signal: AbortSignal,
  listedAdds: boolean,
  listed: () => void,
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
      if (listedAdds) for (const item of list.items) send("add", item);
      listed();
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
      if (!(isKubeRequestError(error) && error.isTransient)) listed();
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
