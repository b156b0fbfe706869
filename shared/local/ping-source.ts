import type { CloudEvent } from "cloudevents";
import { KubeRequestError } from "../kube/errors.ts";
import type { KubeTransport } from "../kube/transport.ts";
import type { Logger } from "../telemetry/logger.ts";
import { parseSchedule } from "../runtime/cron.ts";
import type { PingSourceSpec } from "../runtime/schedule-source.ts";
import { pingEvent } from "./ping-event.ts";

const relistMs = 5_000;

/** What firing a PingSource needs of it. */
export interface PingSourceObject {
  metadata: { name: string; namespace: string };
  spec?: PingSourceSpec;
}

/** How far back a late wake-up looks for seconds it slept through (the adapter's cron fires late, never skips). */
const catchUpMs = 60_000;

/**
 * The whole seconds after `checkedThrough` up to `now`, oldest first, at most a minute's worth: a
 * loop that woke late (a busy machine, a slow list) still sees the second a schedule matched.
 */
export function secondsSince(checkedThrough: number, now: number): Date[] {
  const last = now - (now % 1000);
  const first = Math.max(checkedThrough + 1000, last - catchUpMs + 1000);
  const seconds: Date[] = [];
  for (let at = first - (first % 1000); at <= last; at += 1000) seconds.push(new Date(at));
  return seconds;
}

/**
 * Fires the PingSources the cluster holds, as Knative's PingSource adapter
 * would: every PingSource whose schedule matches a second emits its event, once,
 * and late rather than never when the loop wakes after that second. PingSources are
 * listed afresh every few seconds, so one a function creates fires from its first
 * matching second (a 10-second rollout poll must not wait for a once-a-minute list).
 * `installed` are fired beside them: the PingSources an installation applies once (the
 * resync ticks of knative/resync.yaml), which the local runner does not find in the cluster.
 */
export async function startPingSources(
  transport: KubeTransport,
  emit: (ce: CloudEvent<unknown>) => void,
  log: Logger,
  signal: AbortSignal,
  installed: readonly PingSourceObject[] = [],
): Promise<void> {
  let sources: PingSourceObject[] = [];
  let listedAt = -Infinity;
  let checkedThrough = Date.now() - 1000;
  while (!signal.aborted) {
    const now = Date.now();
    if (now - listedAt >= relistMs) {
      sources = await listPingSources(transport, log);
      listedAt = now;
    }
    const seconds = secondsSince(checkedThrough, now);
    for (const source of [...installed, ...sources]) {
      const schedule = parseSchedule(source.spec?.schedule ?? "* * * * *");
      if (!schedule.ok) {
        log.warn(
          { pingSource: `${source.metadata.namespace}/${source.metadata.name}`, reason: schedule.message },
          "schedule not understood",
        );
        continue;
      }
      if (seconds.some(schedule.matches))
        emit(pingEvent(source.metadata.namespace, source.metadata.name, source.spec ?? {}));
    }
    checkedThrough = seconds.at(-1)?.getTime() ?? checkedThrough;
    await sleepUntilNextSecond(signal);
  }
}

async function listPingSources(transport: KubeTransport, log: Logger): Promise<PingSourceObject[]> {
  try {
    const list = (await transport.request("GET", "/apis/sources.knative.dev/v1/pingsources")) as {
      items: PingSourceObject[];
    };
    return list.items;
  } catch (error) {
    if (!(error instanceof KubeRequestError && error.isNotFound)) log.warn({ err: error }, "cannot list PingSources");
    return [];
  }
}

function sleepUntilNextSecond(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 1000 - (Date.now() % 1000) + 5);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
