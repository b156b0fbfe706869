import { hostname } from "node:os";
import { createKube, type Kube } from "../kube/client.ts";
import { confinedKube, watchedNamespaces } from "../kube/confined.ts";
import { createEventRecorder, type EventRecorder } from "../kube/events.ts";
import { createTransport } from "../kube/transport.ts";
import type { Logger } from "../telemetry/logger.ts";
import type { DispatchDeps } from "./dispatch.ts";

/**
 * The clients one process shares across events. Nothing connects at start:
 * the API server client is made on the first event that needs it and kept
 * for the life of the process (a warm Knative pod answers many events).
 */
export function processDeps(log: Logger, kubeFactory: () => Promise<Kube> = apiServerKube): DispatchDeps {
  let kube: Promise<Kube> | undefined;
  const getKube = () => {
    kube ??= kubeFactory().catch((error: unknown) => {
      kube = undefined; // a failed start is retried on the next event
      throw error;
    });
    return kube;
  };
  return {
    log,
    kube: getKube,
    async recorder(functionName): Promise<EventRecorder> {
      return createEventRecorder(
        await getKube(),
        `nats-operator.io/${functionName}`,
        process.env.POD_NAME ?? hostname(),
      );
    },
  };
}

/**
 * The API server client of a function's pod: confined to WATCH_NAMESPACES when the installation
 * is (chart value watchNamespaces), so lists across namespaces stay within what its Roles allow.
 */
async function apiServerKube(): Promise<Kube> {
  const kube = createKube(await createTransport());
  const namespaces = watchedNamespaces();
  return namespaces === undefined ? kube : confinedKube(kube, namespaces);
}
