import type { CloudEvent } from "cloudevents";
import { KubeRequestError } from "../kube/errors.ts";
import type { KubeTransport } from "../kube/transport.ts";
import type { Logger } from "../telemetry/logger.ts";
import { parseSchedule } from "./cron.ts";
import { pingEvent, type PingSourceSpec } from "./ping-event.ts";

interface PingSourceObject {
  metadata: { name: string; namespace: string };
  spec?: PingSourceSpec;
}

/**
 * Fires the PingSources the cluster holds, as Knative's PingSource adapter
 * would: each second, every PingSource whose schedule matches that second
 * emits its event. PingSources are listed afresh each minute, so ones the
 * functions create or delete take effect within a minute.
 */
export async function startPingSources(
  transport: KubeTransport,
  emit: (ce: CloudEvent<unknown>) => void,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  let sources: PingSourceObject[] = [];
  let listedMinute = -1;
  while (!signal.aborted) {
    const now = new Date();
    const minute = Math.floor(now.getTime() / 60_000);
    if (minute !== listedMinute) {
      sources = await listPingSources(transport, log);
      listedMinute = minute;
    }
    for (const source of sources) {
      const schedule = parseSchedule(source.spec?.schedule ?? "* * * * *");
      if (!schedule.ok) {
        log.warn({ pingSource: `${source.metadata.namespace}/${source.metadata.name}`, reason: schedule.message }, "schedule not understood");
        continue;
      }
      if (schedule.matches(now)) emit(pingEvent(source.metadata.namespace, source.metadata.name, source.spec ?? {}));
    }
    await sleepUntilNextSecond(signal);
  }
}

async function listPingSources(transport: KubeTransport, log: Logger): Promise<PingSourceObject[]> {
  try {
    const list = (await transport.request("GET", "/apis/sources.knative.dev/v1/pingsources")) as { items: PingSourceObject[] };
    return list.items;
  } catch (error) {
    if (!(error instanceof KubeRequestError && error.isNotFound)) log.warn({ err: error }, "cannot list PingSources");
    return [];
  }
}

function sleepUntilNextSecond(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 1000 - (Date.now() % 1000) + 5);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
