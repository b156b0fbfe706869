// The operator in this process for the integration tests: the local runner's Knative parts
// (shared/local/local-runner.ts: an in-process ApiServerSource and PingSources feed CloudEvents
// through the Triggers' filters to the functions, with the Broker's retries and the faults a test
// asks for), with what the tests look at: every delivery attempt, the fault decisions, the log.
// By default render-cluster and step-rollout; a JetStream test runs sync-stream alone
// (`syncStreamOnly`) and sends its own ticks.
import type { CloudEvent } from "cloudevents";
import { Writable } from "node:stream";
import { renderCluster } from "../../../functions/render-cluster/index.ts";
import { stepRollout } from "../../../functions/step-rollout/index.ts";
import { syncStream } from "../../../functions/sync-stream/index.ts";
import type { Kube } from "../../../shared/kube/client.ts";
import type { KubeTransport } from "../../../shared/kube/transport.ts";
import { brokerDelivery, type DeliveryPolicy } from "../../../shared/local/delivery.ts";
import type { Faults } from "../../../shared/local/faults.ts";
import { startLocalOperator } from "../../../shared/local/local-runner.ts";
import { pingEvent } from "../../../shared/local/ping-event.ts";
import { dispatch } from "../../../shared/runtime/dispatch.ts";
import { qualifiedKind, type OperatorFunction } from "../../../shared/runtime/function.ts";
import type { Outcome } from "../../../shared/runtime/outcome.ts";
import { RESYNC_WORK } from "../../../shared/runtime/resync.ts";
import { createLogger } from "../../../shared/telemetry/logger.ts";
import { waitFor } from "../../harness/wait.ts";

export interface DeliveryRecord {
  /** The function delivered to. */
  fn: string;
  /** "Kind/name" of the object the event is about; "Ping/<source>" for a tick. */
  object: string;
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
  /** Every delivery attempt, in order (and each tick a test sent). */
  deliveries: DeliveryRecord[];
  /** Attempts that reached `handle` (not dropped as status echoes) for one "Kind/name". */
  handled(object: string): DeliveryRecord[];
  faults: FaultCounts;
  /** Delivers one CloudEvent to one function, with the Broker's retries and without faults. */
  deliver(fn: OperatorFunction, ce: CloudEvent<unknown>): Promise<Outcome>;
  /**
   * A tick of sync-stream for the namespace, as its PingSources would send it and answered once:
   * the resync tick limited to the namespace (a drift check of every object there) by default,
   * or its settle check.
   */
  tick(namespace: string, check?: "resync" | "settle"): Promise<Outcome>;
  /** Moves the functions' clock forward (a resync period passing without waiting for it). */
  advance(ms: number): void;
  /** Waits until nothing has been delivered for `quietMs`, or `timeoutMs` has passed. */
  settle(quietMs?: number, timeoutMs?: number): Promise<void>;
  /** Its log lines (JSON); OPERATOR_LOG sets the level and echoes them to stderr. */
  log: string[];
  stop(): Promise<void>;
}

export interface OperatorOptions {
  /** The functions it runs: render-cluster and step-rollout by default. */
  functions?: readonly OperatorFunction[];
  /** Functions beside those (sign-account, say). */
  extraFunctions?: OperatorFunction[];
  /**
   * Kinds watched beside the default ones (the auth kinds, Secrets): NatsClusters, StatefulSets
   * and the trusts for the default functions, otherwise every kind the functions handle.
   */
  extraKinds?: string[];
  /** Only the events of objects in these namespaces reach the functions (all by default). */
  namespaces?: readonly string[];
  /** The functions' API client: one on the transport by default. */
  kube?: Kube;
  /** Fires the cluster's PingSources (the default); without them a test sends its own ticks. */
  pingSources?: boolean;
  /** The Broker's redelivery: its schedule with the waits capped at 8 s by default, so a test sees the same order sooner. */
  policy?: DeliveryPolicy;
  /** Records every delivery there, as NATS_OPERATOR_EVENT_LOG does, for `nats-operator replay`. */
  eventLog?: string;
  /** Faults on the way from the sources to the functions (shared/local/faults.ts). */
  faults?: Faults;
  /** The log level unless OPERATOR_LOG names one: info by default. */
  logLevel?: string;
}

/**
 * sync-stream alone, as the JetStream tests run it: the objects of `namespaces` only, no
 * PingSources (the test ticks), the Broker's own schedule, and its warnings only in the log.
 */
export function syncStreamOnly(kube: Kube, namespaces: readonly string[]): OperatorOptions {
  return { functions: [syncStream], kube, namespaces, pingSources: false, policy: brokerDelivery, logLevel: "warn" };
}

const clusterKinds = ["NatsCluster", "StatefulSet", "NatsOperatorTrust", "NatsAccountTrust"];

export async function startOperator(transport: KubeTransport, options: OperatorOptions = {}): Promise<RunningOperator> {
  const lines: string[] = [];
  const echo = process.env["OPERATOR_LOG"] !== undefined;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      if (lines.length > 20000) lines.splice(0, 10000);
      if (echo) process.stderr.write(chunk);
      done();
    },
  });
  const log = createLogger({ level: process.env["OPERATOR_LOG"] ?? options.logLevel ?? "info", destination: sink });
  const functions = [...(options.functions ?? [renderCluster, stepRollout]), ...(options.extraFunctions ?? [])];
  const kinds = new Set(options.functions ? options.functions.flatMap((fn) => fn.kinds) : []);
  const kindNames = new Set([...(options.functions ? [] : clusterKinds), ...(options.extraKinds ?? [])]);
  let offsetMs = 0;
  const deliveries: DeliveryRecord[] = [];
  const faults: FaultCounts = { decided: 0, dropped: 0, extraCopies: 0 };
  const kube = options.kube;

  const operator = await startLocalOperator({
    transport,
    functions,
    log,
    ...(kube ? { kube: async () => kube } : {}),
    now: () => new Date(Date.now() + offsetMs),
    watches: (r) => kindNames.has(r.kind) || kinds.has(qualifiedKind(r.apiVersion, r.kind)),
    ...(options.namespaces ? { admits: (ce) => options.namespaces?.includes(String(ce["namespace"])) === true } : {}),
    ...(options.pingSources === false ? { pingSources: false as const } : {}),
    policy: options.policy ?? { ...brokerDelivery, maxBackoffMs: 8_000 },
    ...(options.eventLog !== undefined ? { eventLog: options.eventLog } : {}),
    ...(options.faults
      ? {
          faults: options.faults,
          onFault: (decision) => {
            faults.decided++;
            if (decision.delaysMs.length === 0) faults.dropped++;
            else faults.extraCopies += decision.delaysMs.length - 1;
          },
        }
      : {}),
    onAttempt: (fn, ce, outcome) =>
      deliveries.push({ fn: fn.name, object: objectOf(ce), type: ce.type, outcome, at: Date.now() }),
  });

  return {
    deliveries,
    handled: (object) =>
      deliveries.filter(
        (d) => d.object === object && !(d.outcome.kind === "skipped" && d.outcome.reason.startsWith("status-only")),
      ),
    faults,
    deliver: operator.deliver,
    async tick(namespace, check = "resync") {
      const fn = functions.find((f) => f.name === syncStream.name);
      if (!fn) throw new Error("tick: sync-stream does not run here");
      const ce =
        check === "resync"
          ? pingEvent("nats-operator", "sync-stream-resync", {
              data: JSON.stringify({ ...RESYNC_WORK, namespace }),
              ceOverrides: { extensions: { target: "sync-stream" } },
            })
          : pingEvent(namespace, "sync-stream-settle", {
              data: JSON.stringify({ check, namespace }),
              ceOverrides: { extensions: { target: "sync-stream" } },
            });
      const outcome = await dispatch(fn, ce, operator.deps);
      deliveries.push({ fn: fn.name, object: `Ping/${namespace}`, type: ce.type, outcome, at: Date.now() });
      return outcome;
    },
    advance(ms) {
      offsetMs += ms;
    },
    async settle(quietMs = 1_500, timeoutMs = 30_000) {
      const quiet = () => {
        const since = operator.quietSince();
        return since !== undefined && Date.now() - since >= quietMs;
      };
      // Past the timeout the caller goes on regardless, as before a measurement.
      await waitFor(`${quietMs} ms without a delivery`, quiet, { timeoutMs, intervalMs: 100 }).catch(() => undefined);
    },
    log: lines,
    stop: () => operator.stop(),
  };
}

/** "Kind/name" of the object an ApiServerSource event is about; "Ping/<source>" otherwise. */
function objectOf(ce: CloudEvent<unknown>): string {
  return `${String(ce["kind"] ?? "Ping")}/${String(ce["name"] ?? ce.source)}`;
}
