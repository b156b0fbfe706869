import { readFile } from "node:fs/promises";
import type { CloudEvent } from "cloudevents";
import { parse } from "yaml";
import type { FunctionCatalog } from "../runtime/catalog.ts";
import { createKube } from "../kube/client.ts";
import { KubeRequestError } from "../kube/errors.ts";
import { createTransport, type KubeTransport } from "../kube/transport.ts";
import { processDeps } from "../runtime/deps.ts";
import type { OperatorFunction } from "../runtime/function.ts";
import type { Outcome } from "../runtime/outcome.ts";
import { onTermination } from "../runtime/shutdown.ts";
import type { Logger } from "../telemetry/logger.ts";
import { startApiServerSource } from "./apiserver-source.ts";
import { deliverWithRetries } from "./delivery.ts";
import { routeToFunctions } from "./fan-out.ts";
import { describeFaults, FAULTS_ENV, parseFaults, withFaults } from "./faults.ts";
import { knativeDir, loadResyncSchedules, loadTriggerRoutes, loadWatchedResources } from "./manifests.ts";
import { startPingSources } from "./ping-source.ts";

/**
 * Runs every selected function in this process against the cluster KUBECONFIG
 * names: an in-process ApiServerSource and PingSource feed CloudEvents
 * through the Triggers' filters to the functions, and retryable answers are
 * redelivered with the Broker's backoff. NATS_OPERATOR_EVENT_LOG records every delivery, as it
 * does for `serve`, for `nats-operator replay`. NATS_OPERATOR_FAULTS puts faults into that
 * delivery (shared/eventing/faults.ts): drop, duplicate, reorder, a concurrency limit.
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

  const functions = new Map((await catalog.loadFunctions(selection.names)).map((fn) => [fn.name, fn]));
  const routes = await loadTriggerRoutes();
  const resources = await loadWatchedResources();
  // Knative's PingSource adapter fires these once the chart applies them; here nothing applies them.
  const resync = await loadResyncSchedules();
  const deps = processDeps(log, async () => createKube(transport));
  const abort = new AbortController();
  const eventLog = env.NATS_OPERATOR_EVENT_LOG ? { eventLog: env.NATS_OPERATOR_EVENT_LOG } : {};

  const deliver = async (fn: OperatorFunction, ce: CloudEvent<unknown>): Promise<Outcome> => {
    const outcome = await deliverWithRetries(fn, ce, deps, { signal: abort.signal, ...eventLog });
    if ((outcome.kind === "retry" || outcome.kind === "conflict") && !abort.signal.aborted) {
      log.warn({ function: fn.name, eventId: ce.id, type: ce.type }, "event dead-lettered after the last retry");
    }
    return outcome;
  };
  const routing = routeToFunctions(routes, functions, faults ? withFaults(deliver, faults) : deliver);

  log.info({ server: transport.server, functions: [...functions.keys()] }, "running functions locally");
  if (faults)
    log.warn({ faults: faultsText, seed: faults.seed }, `event delivery faults on: ${describeFaults(faults)}`);
  onTermination(log, async () => {
    abort.abort();
    await routing.drain();
    await Promise.all([...functions.values()].map((fn) => fn.shutdown?.()));
  });
  await Promise.all([
    startApiServerSource(transport, resources, routing.emit, log, abort.signal),
    startPingSources(transport, routing.emit, log, abort.signal, resync),
  ]);
  return 0;
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
