import type { CloudEvent } from "cloudevents";
import type { FunctionCatalog } from "../runtime/catalog.ts";
import { processDeps } from "../runtime/deps.ts";
import { startServer } from "../runtime/server.ts";
import { createLogger } from "../telemetry/logger.ts";
import { readEventLog, replayEvents, type ReplayResult } from "./replay.ts";
import { loadTriggerRoutes } from "./manifests.ts";
import { routeEvent } from "./router.ts";

export interface ReplayOptions {
  /** The JSON Lines event log. */
  file: string;
  /** Every event goes here, in file order, when given. */
  url?: string;
  /** The functions to start when no URL is given, as FUNCTIONS names them (all when unset). */
  functions?: string;
  /** Where the one line per delivery goes (stdout). */
  out?: { write(text: string): unknown };
}

/**
 * Replays an event log. With a URL, every event goes there. Without one, the
 * functions start in this process (against KUBECONFIG's cluster, reached only
 * if a function needs it) and each event goes to the functions whose Trigger
 * passes it, as the Broker would route it. Prints one line per delivery:
 * `<status> <target> <type> <id> <outcome>[: <detail>]`. Returns 0 when every
 * delivery was answered 2xx, 1 otherwise, so a script can tell.
 */
export async function replayCommand(catalog: FunctionCatalog, options: ReplayOptions): Promise<number> {
  const events = await readEventLog(options.file);
  const out = options.out ?? process.stdout;
  let failed = 0;
  const print = (target: string, result: ReplayResult) => {
    if (result.status < 200 || result.status > 299) failed++;
    // One line per delivery, whatever the detail holds, so that the output can be read line by line.
    const detail = result.detail ? `: ${result.detail.replace(/\s+/g, " ")}` : "";
    out.write(`${result.status} ${target} ${result.type} ${result.id} ${result.outcome ?? "-"}${detail}\n`);
  };
  if (options.url) {
    for (const result of await replayEvents(options.url, events)) print(options.url, result);
    return failed === 0 ? 0 : 1;
  }
  const selection = catalog.selectFunctions(options.functions);
  if (!selection.ok) throw new Error(selection.message);
  const log = createLogger({ level: process.env.LOG_LEVEL ?? "warn", destination: process.stderr });
  const functions = await catalog.loadFunctions(selection.names);
  const server = await startServer({ functions, deps: processDeps(log), port: 0, host: "127.0.0.1" });
  try {
    const routes = await loadTriggerRoutes();
    for (const ce of firstOfEach(events)) {
      const targets = routeEvent(routes, ce).filter((name) => selection.names.includes(name));
      if (targets.length === 0) out.write(`--- (no trigger) ${ce.type} ${ce.id}\n`);
      for (const target of targets) {
        const [result] = await replayEvents(`http://127.0.0.1:${server.port}/${target}`, [ce]);
        if (result) print(target, result);
      }
    }
  } finally {
    await server.close();
    // As serve does on SIGTERM: step-rollout's NATS connections would otherwise keep the process up.
    await Promise.all(functions.map((fn) => fn.shutdown?.()));
  }
  return failed === 0 ? 0 : 1;
}

/**
 * Each event once. A log records an event once per function that received it and once per
 * redelivery; routed through the Triggers again, its first copy reaches every function the Broker
 * fanned it out to, and a second would deliver it twice over.
 */
function firstOfEach(events: readonly CloudEvent<unknown>[]): CloudEvent<unknown>[] {
  const seen = new Set<string>();
  return events.filter((ce) => {
    const key = `${ce.source}\n${ce.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
