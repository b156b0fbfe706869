// Runs sync-stream the way Knative would, in-process: an ApiServerSource
// watch feeds CloudEvents through dispatch (decode, echo filter), and
// retryable answers are redelivered with the Trigger's backoff (10 retries,
// exponential from 0.5 s). Every delivery is counted per object.
import { Writable } from "node:stream";
import type { CloudEvent } from "cloudevents";
import { syncStream } from "../../../../functions/sync-stream/index.ts";
import { startApiServerSource } from "../../../../shared/eventing/apiserver-source.ts";
import { deliverWithRetries } from "../../../../shared/eventing/delivery.ts";
import { loadWatchedResources } from "../../../../shared/eventing/manifests.ts";
import { pingEvent } from "../../../../shared/eventing/ping-event.ts";
import type { Kube } from "../../../../shared/kube/client.ts";
import type { KubeTransport } from "../../../../shared/kube/transport.ts";
import { dispatch, type DispatchDeps } from "../../../../shared/runtime/dispatch.ts";
import { qualifiedKind } from "../../../../shared/runtime/function.ts";
import { RESYNC_WORK } from "../../../../shared/runtime/resync.ts";
import type { Outcome } from "../../../../shared/runtime/outcome.ts";
import { createEventRecorder } from "../../../../shared/kube/events.ts";
import { createLogger } from "../../../../shared/telemetry/logger.ts";

export interface Delivery {
  object: string;
  type: string;
  outcome: Outcome;
  at: number;
}

export interface Driver {
  deliveries: Delivery[];
  /** Deliveries that reached `handle` (not dropped as status echoes), per "Kind/name". */
  handled(object: string): Delivery[];
  /**
   * A tick for the namespace: the resync tick limited to it (a drift check of every object
   * there) by default, or its settle check, as their PingSources would send them.
   */
  tick(namespace: string, check?: "resync" | "settle"): Promise<Outcome>;
  /** Moves the function's clock forward (a resync period passing without waiting for it). */
  advance(ms: number): void;
  /** Waits until nothing has been delivered for `quietMs`. */
  settle(quietMs?: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export function startDriver(transport: KubeTransport, kube: Kube, namespaces: readonly string[]): Driver {
  const logLines: string[] = [];
  const log = createLogger({
    level: process.env.SYNC_STREAM_TEST_LOG ?? "warn",
    destination: new Writable({
      write(chunk: Buffer, _e, cb) {
        logLines.push(chunk.toString("utf8"));
        if (process.env.SYNC_STREAM_TEST_LOG) process.stderr.write(chunk);
        cb();
      },
    }),
  });
  let offsetMs = 0;
  const deps: DispatchDeps = {
    log,
    now: () => new Date(Date.now() + offsetMs),
    kube: async () => kube,
    recorder: async (name) => createEventRecorder(kube, `nats-operator.io/${name}`, "test"),
  };
  const abort = new AbortController();
  const deliveries: Delivery[] = [];
  const inFlight = new Set<Promise<void>>();
  let lastActivity = Date.now();

  const deliver = async (ce: CloudEvent<unknown>) => {
    const object = `${String(ce["kind"] ?? "Ping")}/${String(ce["name"] ?? ce.source)}`;
    await deliverWithRetries(syncStream, ce, deps, {
      signal: abort.signal,
      onAttempt: (outcome) => {
        lastActivity = Date.now();
        deliveries.push({ object, type: ce.type, outcome, at: Date.now() });
      },
    });
  };

  const emit = (ce: CloudEvent<unknown>) => {
    if (!namespaces.includes(String(ce["namespace"]))) return;
    lastActivity = Date.now();
    const p = deliver(ce).catch((error: unknown) => void logLines.push(String(error)));
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  void loadWatchedResources().then((resources) => {
    const ours = resources.filter((r) => syncStream.kinds.includes(qualifiedKind(r.apiVersion, r.kind)));
    return startApiServerSource(transport, ours, emit, log, abort.signal);
  });

  return {
    deliveries,
    handled: (object) =>
      deliveries.filter(
        (d) => d.object === object && !(d.outcome.kind === "skipped" && d.outcome.reason.startsWith("status-only")),
      ),
    advance(ms) {
      offsetMs += ms;
    },
    async tick(namespace, check = "resync") {
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
      const outcome = await dispatch(syncStream, ce, deps);
      deliveries.push({ object: `Ping/${namespace}`, type: ce.type, outcome, at: Date.now() });
      return outcome;
    },
    async settle(quietMs = 1_500, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (inFlight.size === 0 && Date.now() - lastActivity >= quietMs) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      abort.abort();
      await Promise.allSettled([...inFlight]);
      // As on SIGTERM: the function closes the NATS connections it pooled.
      await syncStream.shutdown?.();
    },
  };
}
