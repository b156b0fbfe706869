import { readFile } from "node:fs/promises";
import type { CloudEvent } from "cloudevents";
import { parse } from "yaml";
import type { FunctionCatalog } from "../runtime/catalog.ts";
import { createKube, type Kube } from "../kube/client.ts";
import { KubeRequestError } from "../kube/errors.ts";
import { createTransport, type KubeTransport } from "../kube/transport.ts";
import { processDeps } from "../runtime/deps.ts";
import type { DispatchDeps } from "../runtime/dispatch.ts";
import type { OperatorFunction } from "../runtime/function.ts";
import type { Outcome } from "../runtime/outcome.ts";
import { onTermination } from "../runtime/shutdown.ts";
import type { Logger } from "../telemetry/logger.ts";
import { startApiServerSource } from "./apiserver-source.ts";
import { deliverWithRetries, type DeliveryPolicy } from "./delivery.ts";
import { routeToFunctions } from "./fan-out.ts";
import { describeFaults, FAULTS_ENV, parseFaults, withFaults, type FaultDecision, type Faults } from "./faults.ts";
import {
  knativeDir,
  loadResyncSchedules,
  loadTriggerRoutes,
  loadWatchedResources,
  type WatchedResource,
} from "./manifests.ts";
import { startPingSources, type PingSourceObject } from "./ping-source.ts";

/**
 * Runs every selected function in this process against the cluster KUBECONFIG
 * names (startLocalOperator, with every source and the resync ticks of knative/resync.yaml).
 * NATS_OPERATOR_EVENT_LOG records every delivery, as it does for `serve`, for
 * `nats-operator replay`. NATS_OPERATOR_FAULTS puts faults into the delivery
 * (shared/local/faults.ts): drop, duplicate, reorder, a concurrency limit.
 * `ensureCluster` runs once the settings are known to be good (starting a local control plane
 * takes a while, and is no way to learn of a typo); a non-zero answer is the exit code.
 */
export async function runLocally(
  catalog: FunctionCatalog,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
  ensureCluster: () => number = () => 0,
): Promise<number> {
  const selection = catalog.selectFunctions(env.FUNCTIONS);
  if (!selection.ok) {
    log.fatal(selection.message);
    return 2;
  }
  const faultsText = env[FAULTS_ENV]?.trim();
  // A random seed unless one is given; the start line names it so the run can be repeated.
  const parsed = faultsText ? parseFaults(faultsText, Math.floor(Math.random() * 2 ** 32)) : undefined;
  if (parsed && !parsed.ok) {
    log.fatal(`${FAULTS_ENV}: ${parsed.message}`);
    return 2;
  }
  const faults = parsed?.ok ? parsed.faults : undefined;
  const started = ensureCluster();
  if (started !== 0) return started;
  const transport = await reachCluster();
  if (typeof transport === "string") {
    process.stderr.write(`nats-operator: ${transport}\n`);
    return 1;
  }
  await ensurePingSourceKind(transport, log);

  const functions = await catalog.loadFunctions(selection.names);
  // Knative's PingSource adapter fires these once the chart applies them; here nothing applies them.
  const resync = await loadResyncSchedules();
  log.info({ server: transport.server, functions: functions.map((fn) => fn.name) }, "running functions locally");
  if (faults)
    log.warn({ faults: faultsText, seed: faults.seed }, `event delivery faults on: ${describeFaults(faults)}`);
  const operator = await startLocalOperator({
    transport,
    functions,
    log,
    pingSources: { installed: resync },
    ...(env.NATS_OPERATOR_EVENT_LOG ? { eventLog: env.NATS_OPERATOR_EVENT_LOG } : {}),
    ...(faults ? { faults } : {}),
  });
  // As an adapter that is up: what changes from here on is delivered, what existed is the resync's.
  log.info("watching every kind");
  onTermination(log, () => operator.stop());
  await operator.sources;
  return 0;
}

export interface LocalOperatorOptions {
  /** The cluster the sources list and watch. */
  transport: KubeTransport;
  /** The functions this process hosts; a routed function it does not host is skipped. */
  functions: readonly OperatorFunction[];
  log: Logger;
  /** The functions' API client: one on `transport` by default. */
  kube?: () => Promise<Kube>;
  /** The functions' clock: the real one by default. */
  now?: () => Date;
  /** Which resources of knative/'s ApiServerSources to list and watch: all by default. */
  watches?: (resource: WatchedResource) => boolean;
  /**
   * An add for every object the in-process ApiServerSource lists, at its start and after a lost
   * watch. Off by default: Knative's adapter sends none, and the resync must recover what
   * changed while no source watched.
   */
  listedAdds?: boolean;
  /** Which of the sources' events reach the Broker: all by default. */
  admits?: (ce: CloudEvent<unknown>) => boolean;
  /**
   * Fires the PingSources the cluster holds, and `installed` beside them (the resync ticks an
   * installation applies once); `false` fires none (a test sends its own ticks).
   */
  pingSources?: false | { installed?: readonly PingSourceObject[] };
  /** The Broker's redelivery: brokerDelivery by default. */
  policy?: DeliveryPolicy;
  /** Records every delivery attempt there (NATS_OPERATOR_EVENT_LOG), for `nats-operator replay`. */
  eventLog?: string;
  /** Faults on the way from the sources to the functions; `onFault` sees each decision. */
  faults?: Faults;
  onFault?: (decision: FaultDecision) => void;
  /** Sees the outcome of every delivery attempt (to count them). */
  onAttempt?: (fn: OperatorFunction, ce: CloudEvent<unknown>, outcome: Outcome) => void;
}

export interface LocalOperator {
  /** What every delivery dispatches with (a test dispatches its own tick with them). */
  deps: DispatchDeps;
  /** Hands an event to the Broker as a source would: routed by the Triggers, with the faults. */
  emit(ce: CloudEvent<unknown>): void;
  /** Delivers one event to one function, with the Broker's retries and without faults. */
  deliver(fn: OperatorFunction, ce: CloudEvent<unknown>): Promise<Outcome>;
  /** When the Broker last took an event or made an attempt; undefined while deliveries are in flight. */
  quietSince(): number | undefined;
  /** Settles when the sources stop (after `stop`). */
  sources: Promise<void>;
  /** Stops the sources, lets the deliveries in flight end, then shuts the functions down, as on SIGTERM. */
  stop(): Promise<void>;
}

/**
 * The Knative parts in this process: an in-process ApiServerSource and PingSource feed
 * CloudEvents through the Triggers' filters to the functions, and retryable answers are
 * redelivered with the Broker's backoff (an answer still retryable after the last retry is
 * logged as dead-lettered). `runLocally` and the integration tests run the functions on it.
 */
export async function startLocalOperator(options: LocalOperatorOptions): Promise<LocalOperator> {
  const { transport, log } = options;
  const functions = new Map(options.functions.map((fn) => [fn.name, fn]));
  const routes = await loadTriggerRoutes();
  const resources = (await loadWatchedResources()).filter(options.watches ?? (() => true));
  const shared = processDeps(log, options.kube ?? (async () => createKube(transport)));
  const deps: DispatchDeps = options.now ? { ...shared, now: options.now } : shared;
  const abort = new AbortController();
  let lastAt = Date.now();

  const deliver = async (fn: OperatorFunction, ce: CloudEvent<unknown>): Promise<Outcome> => {
    const outcome = await deliverWithRetries(fn, ce, deps, {
      signal: abort.signal,
      ...(options.policy ? { policy: options.policy } : {}),
      ...(options.eventLog !== undefined ? { eventLog: options.eventLog } : {}),
      onAttempt: (attempt) => {
        lastAt = Date.now();
        options.onAttempt?.(fn, ce, attempt);
      },
    });
    if ((outcome.kind === "retry" || outcome.kind === "conflict") && !abort.signal.aborted) {
      log.warn({ function: fn.name, eventId: ce.id, type: ce.type }, "event dead-lettered after the last retry");
    }
    return outcome;
  };
  const routing = routeToFunctions(
    routes,
    functions,
    options.faults
      ? withFaults(deliver, options.faults, options.onFault, (ce) =>
          typeof ce["kind"] === "string" ? ce["kind"] : undefined,
        )
      : deliver,
  );
  const emit = (ce: CloudEvent<unknown>) => {
    if (options.admits && !options.admits(ce)) return;
    lastAt = Date.now();
    routing.emit(ce);
  };
  let synced = () => {};
  const listed = new Promise<void>((resolve) => (synced = resolve));
  const sources = Promise.all([
    startApiServerSource(transport, resources, emit, log, abort.signal, {
      synced,
      ...(options.listedAdds ? { listedAdds: true } : {}),
    }),
    options.pingSources === false
      ? undefined
      : startPingSources(transport, emit, log, abort.signal, options.pingSources?.installed),
  ]).then(() => undefined);
  sources.catch((error: unknown) => log.error({ err: error }, "an event source stopped"));
  // What is made from here on is watched, as with an adapter that is up: what existed before is
  // the resync's (no add for it, unless `listedAdds`).
  await listed;
  return {
    deps,
    emit,
    deliver,
    quietSince: () => (routing.inFlight() === 0 ? lastAt : undefined),
    sources,
    async stop() {
      abort.abort();
      await routing.drain();
      await Promise.race([sources.catch(() => undefined), new Promise((r) => setTimeout(r, 3000))]);
      // As on SIGTERM: the functions close what they hold (NATS connections).
      await Promise.all([...functions.values()].map((fn) => fn.shutdown?.()));
    },
  };
}

/** The transport, or one line saying why no cluster can be reached. */
async function reachCluster(): Promise<KubeTransport | string> {
  try {
    const transport = await createTransport();
    await transport.request("GET", "/version");
    return transport;
  } catch (error) {
    const where = process.env.KUBECONFIG ? `KUBECONFIG=${process.env.KUBECONFIG}` : "the default kubeconfig";
    const why = error instanceof Error ? error.message : String(error);
    return `no reachable Kubernetes cluster (${where}): ${why}`;
  }
}

/** Installs the local PingSource CRD when the cluster has no Knative Eventing. */
async function ensurePingSourceKind(transport: KubeTransport, log: Logger): Promise<void> {
  try {
    await transport.request("GET", "/apis/sources.knative.dev/v1");
    return;
  } catch (error) {
    if (!(error instanceof KubeRequestError && error.isNotFound)) throw error;
  }
  const crd = parse(await readFile(new URL("local/pingsource-crd.yaml", knativeDir), "utf8")) as {
    metadata: { name: string };
  };
  await transport.request("PATCH", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, {
    body: crd,
    contentType: "application/apply-patch+yaml",
    query: { fieldManager: "nats-operator-local-runner", force: true },
  });
  log.info("installed the local PingSource CRD (no Knative Eventing on this cluster)");
}
