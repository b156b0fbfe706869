// The two cluster functions run in this process the way the local runner runs them: an
// in-process ApiServerSource (NatsClusters, owned StatefulSets and the trusts) and PingSources feed
// CloudEvents through the Triggers' filters, with the Broker's retries, and the faults a test asks for.
import type { CloudEvent } from "cloudevents";
import { Writable } from "node:stream";
import { renderCluster } from "../../../../functions/render-cluster/index.ts";
import { stepRollout } from "../../../../functions/step-rollout/index.ts";
import { startApiServerSource } from "../../../../shared/eventing/apiserver-source.ts";
import { brokerDelivery, deliverWithRetries } from "../../../../shared/eventing/delivery.ts";
import { routeToFunctions } from "../../../../shared/eventing/fan-out.ts";
import { withFaults, type Faults } from "../../../../shared/eventing/faults.ts";
import { loadTriggerRoutes, loadWatchedResources } from "../../../../shared/eventing/manifests.ts";
import { startPingSources } from "../../../../shared/eventing/ping-source.ts";
import { createKube } from "../../../../shared/kube/client.ts";
import type { KubeTransport } from "../../../../shared/kube/transport.ts";
import { processDeps } from "../../../../shared/runtime/deps.ts";
import type { OperatorFunction } from "../../../../shared/runtime/function.ts";
import type { Outcome } from "../../../../shared/runtime/outcome.ts";
import { createLogger } from "../../../../shared/telemetry/logger.ts";

export interface DeliveryRecord {
  fn: string;
  type: string;
  outcome: Outcome;
  at: number;
}

/** What the faults did to the routed deliveries, counted per delivery decided. */
export interface FaultCounts {
  decided: number;
  dropped: number;
  /** Deliveries made beyond one per event and function (the duplicates). */
  extraCopies: number;
}

export interface RunningOperator {
  deliveries: DeliveryRecord[];
  faults: FaultCounts;
  /** Delivers one CloudEvent to one function, with the Broker's retries and without faults. */
  deliver(fn: OperatorFunction, ce: CloudEvent<unknown>): Promise<Outcome>;
  log: string[];
  stop(): Promise<void>;
}

export interface OperatorOptions {
  /** Functions beside render-cluster and step-rollout (sign-account, say). */
  extraFunctions?: OperatorFunction[];
  /** Kinds watched beside NatsClusters, StatefulSets and the trusts (the auth kinds, Secrets). */
  extraKinds?: string[];
  /** Records every delivery there, as NATS_OPERATOR_EVENT_LOG does, for `nats-operator replay`. */
  eventLog?: string;
  /** Faults on the way from the sources to the functions (shared/eventing/faults.ts). */
  faults?: Faults;
}

export async function startOperator(transport: KubeTransport, options: OperatorOptions = {}): Promise<RunningOperator> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      if (lines.length > 20000) lines.splice(0, 10000);
      done();
    },
  });
  const log = createLogger({ level: process.env["OPERATOR_LOG"] ?? "info", destination: sink });
  const functions = new Map<string, OperatorFunction>([
    [renderCluster.name, renderCluster],
    [stepRollout.name, stepRollout],
    ...(options.extraFunctions ?? []).map((fn): [string, OperatorFunction] => [fn.name, fn]),
  ]);
  const routes = await loadTriggerRoutes();
  const watched = new Set([
    "NatsCluster",
    "StatefulSet",
    "NatsOperatorTrust",
    "NatsAccountTrust",
    ...(options.extraKinds ?? []),
  ]);
  const resources = (await loadWatchedResources()).filter((r) => watched.has(r.kind));
  const deps = processDeps(log, async () => createKube(transport));
  const abort = new AbortController();
  const deliveries: DeliveryRecord[] = [];
  const faults: FaultCounts = { decided: 0, dropped: 0, extraCopies: 0 };

  const deliver = (fn: OperatorFunction, ce: CloudEvent<unknown>): Promise<Outcome> =>
    deliverWithRetries(fn, ce, deps, {
      signal: abort.signal,
      // The Broker's schedule with the waits capped at 8 s, so a test sees the same order sooner.
      policy: { ...brokerDelivery, maxBackoffMs: 8_000 },
      onAttempt: (outcome) => deliveries.push({ fn: fn.name, type: ce.type, outcome, at: Date.now() }),
      ...(options.eventLog !== undefined ? { eventLog: options.eventLog } : {}),
    });
  const routing = routeToFunctions(
    routes,
    functions,
    options.faults
      ? withFaults(deliver, options.faults, (decision) => {
          faults.decided++;
          if (decision.delaysMs.length === 0) faults.dropped++;
          else faults.extraCopies += decision.delaysMs.length - 1;
        })
      : deliver,
  );
  const running = Promise.all([
    startApiServerSource(transport, resources, routing.emit, log, abort.signal),
    startPingSources(transport, routing.emit, log, abort.signal),
  ]).catch(() => undefined);
  return {
    deliveries,
    faults,
    deliver,
    log: lines,
    async stop() {
      abort.abort();
      await routing.drain();
      await Promise.race([running, new Promise((r) => setTimeout(r, 3000))]);
      // As on SIGTERM: the functions close what they hold (step-rollout's NATS connections).
      await Promise.all([...functions.values()].map((fn) => fn.shutdown?.()));
    },
  };
}
