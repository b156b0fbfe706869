import type { CloudEvent } from "cloudevents";
import { KubeRequestError } from "../kube/errors.ts";
import type { Logger } from "../telemetry/logger.ts";
import { recordReconcile, withEventSpan } from "../telemetry/instruments.ts";
import { isStatusEcho } from "./echo.ts";
import { decodeEvent, type OperatorEvent } from "./event.ts";
import { qualifiedKind, type FunctionContext, type OperatorFunction } from "./function.ts";
import { conflict, malformed, refused, retry, skipped, type Outcome } from "./outcome.ts";
import { createScheduleKeeper, type ScheduleKeeper } from "./schedule-keeper.ts";
import { operatorNamespace } from "./operator-namespace.ts";
import { isResyncTick, malformedResync, resyncNamespace, sweep } from "./resync.ts";
import { claimResync } from "./resync-claim.ts";
import type { SweepPatience } from "./sweep-patience.ts";
import {
  carriesStalled,
  clearStalled,
  isPermanentRefusal,
  refusalMessage,
  reportRefusal,
  showsStalled,
} from "./refusal.ts";

/** What dispatching needs from the process: shared clients, made on first use. */
export interface DispatchDeps {
  log: Logger;
  kube: FunctionContext["kube"];
  recorder: (functionName: string) => ReturnType<FunctionContext["recorder"]>;
  now?: () => Date;
  /** How a resync sweep tries again what failed for now (tests shorten the waits). */
  sweepPatience?: SweepPatience;
  /**
   * The namespace whose resync PingSources a tick may come from (resync-cap.ts):
   * operatorNamespace() unless given; undefined outside a pod, where ticks are not capped.
   */
  operatorNamespace?: () => string | undefined;
}

// One schedule keeper per set of dependencies, i.e. per process: what it remembers of its own
// applies is only good for the clients it wrote with.
const keepers = new WeakMap<DispatchDeps, ScheduleKeeper>();
function keeperOf(deps: DispatchDeps): ScheduleKeeper {
  let keeper = keepers.get(deps);
  if (!keeper) {
    keeper = createScheduleKeeper(deps.kube, deps.log);
    keepers.set(deps, keeper);
  }
  return keeper;
}

/**
 * Runs one function on one CloudEvent: decodes it, drops what the function
 * does not handle and the echoes of our own status writes without an API
 * call, keeps or drops the PingSources its outcome's schedules ask for,
 * and turns whatever the function throws into a retryable outcome.
 */
export async function dispatch(fn: OperatorFunction, ce: CloudEvent<unknown>, deps: DispatchDeps): Promise<Outcome> {
  const decoded = decodeEvent(ce);
  if (!decoded.ok) return malformed(decoded.message);
  const event = decoded.event;
  const notResync = malformedResync(event);
  if (notResync) return malformed(notResync);
  if (isResyncTick(event) && fn.owns !== undefined) return resyncTick(fn, ce, event, deps);
  return deliver(fn, ce, event, deps, { echoes: "drop" });
}

/**
 * A resync tick, answered by the runtime for the function: each owned object not at rest is
 * delivered as its update event would have been, echo check aside (at rest was judged already).
 */
async function resyncTick(
  fn: OperatorFunction,
  ce: CloudEvent<unknown>,
  event: OperatorEvent,
  deps: DispatchDeps,
): Promise<Outcome> {
  const log = deps.log.child({ function: fn.name, eventId: ce.id, eventType: ce.type });
  const kube = await deps.kube();
  const namespace = resyncNamespace(event);
  const pingSource = event.source === "ping" ? event.pingSource : undefined;
  const home = (deps.operatorNamespace ?? operatorNamespace)();
  // One sweep per firing of the function's resync PingSource, however many ticks claim it.
  const claimed = await claimResync(kube, fn.name, pingSource, home, nowOf(deps)).catch((error: unknown) =>
    outcomeOfError(error, log),
  );
  if (claimed.kind !== "sweep") {
    const outcome = claimed.kind === "skip" ? skipped(`resync: ${claimed.reason}`) : claimed;
    log.info({ outcome: outcome.kind, detail: detailOf(outcome) }, "resync tick handled");
    return outcome;
  }
  const outcome = await sweep(
    fn,
    {
      list: (apiVersion, kind, inNamespace = namespace) =>
        kube.list({ apiVersion, kind, ...(inNamespace ? { namespace: inNamespace } : {}) }),
      get: (ref) => kube.get(ref),
      refused: (error) => error instanceof KubeRequestError && error.code === 403,
      transient: (error) => error instanceof KubeRequestError && error.isTransient,
    },
    async (synthetic) => {
      const decoded = decodeEvent(synthetic);
      return decoded.ok
        ? deliver(fn, synthetic, decoded.event, deps, { echoes: "deliver" })
        : malformed(decoded.message);
    },
    nowOf(deps),
    namespace,
    deps.sweepPatience,
  ).catch((error: unknown) => outcomeOfError(error, log));
  // A sweep that failed leaves its firing unclaimed again, so the Broker's retry of the tick sweeps.
  if (outcome.kind !== "done" && claimed.release)
    await claimed.release().catch((error: unknown) => log.warn({ err: error }, "resync claim not released"));
  log.info({ outcome: outcome.kind, detail: detailOf(outcome) }, "resync tick handled");
  return outcome;
}

async function deliver(
  fn: OperatorFunction,
  ce: CloudEvent<unknown>,
  event: OperatorEvent,
  deps: DispatchDeps,
  options: { echoes: "drop" | "deliver" },
): Promise<Outcome> {
  const log = deps.log.child({ function: fn.name, eventId: ce.id, eventType: ce.type, ...describe(event) });
  const kind = event.source === "apiserver" ? qualifiedKind(event.ref.apiVersion, event.ref.kind) : "PingSource";

  const ignored = ignoreReason(fn, event, options.echoes === "drop", nowOf(deps));
  if (ignored) {
    log.debug({ reason: ignored }, "event ignored");
    return skipped(ignored);
  }

  const started = performance.now();
  let handledLog = log;
  const outcome = await withEventSpan(fn.name, ce, event, async (traceId) => {
    handledLog = log.child({ traceId });
    const context: FunctionContext = {
      log: handledLog,
      event,
      kube: deps.kube,
      recorder: () => deps.recorder(fn.name),
      now: () => nowOf(deps),
    };
    try {
      const outcome = await fn.handle(context, ce);
      // On every kind of outcome: a conflict or retry that knows its poll says so as well.
      if (outcome.schedules && outcome.schedules.length > 0) await keeperOf(deps).settle(outcome.schedules);
      if (event.source === "apiserver" && outcome.kind === "done" && showsStalled(event.snapshot)) {
        const cleared = await clearStalled(await deps.kube(), event.ref);
        if (cleared?.kind === "conflict") return conflict(cleared.error.message);
      }
      return outcome;
    } catch (error) {
      if (error instanceof KubeRequestError && isPermanentRefusal(error)) {
        if (event.source === "apiserver" && carriesStalled(event.ref)) {
          await reportRefusal(await deps.kube(), await context.recorder(), event.ref, error, context.now(), log);
        } else log.error({ code: error.code, reason: error.reason }, refusalMessage(error));
        return refused(refusalMessage(error));
      }
      return outcomeOfError(error, log);
    }
  });
  recordReconcile(fn.name, kind, outcome.kind, performance.now() - started);
  handledLog.info({ outcome: outcome.kind, detail: detailOf(outcome) }, "event handled");
  return outcome;
}

const nowOf = (deps: DispatchDeps): Date => deps.now?.() ?? new Date();

function ignoreReason(fn: OperatorFunction, event: OperatorEvent, dropEchoes: boolean, now: Date): string | undefined {
  if (event.source === "ping") return fn.handlesPings ? undefined : `${fn.name} takes no ping ticks`;
  const kind = qualifiedKind(event.ref.apiVersion, event.ref.kind);
  if (!fn.kinds.includes(kind)) return `${fn.name} does not handle ${kind}`;
  if (dropEchoes && isStatusEcho(event, fn.actionAnnotations, (snapshot) => fn.caresAbout?.(snapshot, now) ?? false))
    return "status-only update of an object already observed";
  return undefined;
}

function outcomeOfError(error: unknown, log: Logger): Outcome {
  if (error instanceof KubeRequestError) {
    if (error.isConflict) return conflict(error.message);
    if (error.isTransient) return retry(`API server: ${error.message}`);
    log.error({ code: error.code, reason: error.reason, err: error }, "API request refused");
    return retry(`API server refused a request (${error.code} ${error.reason}): ${error.message}`);
  }
  log.error({ err: error }, "function failed");
  return retry(error instanceof Error ? error.message : String(error));
}

function describe(event: OperatorEvent): Record<string, string | undefined> {
  if (event.source === "ping") return { pingSource: event.pingSource };
  return { kind: event.ref.kind, namespace: event.ref.namespace, name: event.ref.name };
}

function detailOf(outcome: Outcome): string | undefined {
  switch (outcome.kind) {
    case "done":
      return outcome.summary;
    case "skipped":
      return outcome.reason;
    default:
      return outcome.message;
  }
}
