import type { FunctionCatalog } from "../runtime/catalog.ts";
import { processDeps } from "../runtime/deps.ts";
import { startServer } from "../runtime/server.ts";
import { createLogger } from "../telemetry/logger.ts";
import { readEventLog, replayEvents, type ReplayResult } from "./replay.ts";
import { loadTriggerRoutes } from "./manifests.ts";
import { routeEvent } from "./router.ts";

/**
 * Replays an event log. With a URL, every event goes there. Without one, the
 * functions start in this process (against KUBECONFIG's cluster, reached only
 * if a function needs it) and each event goes to the functions whose Trigger
 * passes it, as the Broker would route it. Prints one line per delivery.
 */
export async function replayCommand(catalog: FunctionCatalog, file: string, url: string | undefined): Promise<number> {
  const events = await readEventLog(file);
  const print = (target: string, result: ReplayResult) =>
    process.stdout.write(
      `${result.status} ${target} ${result.type} ${result.id} ${result.outcome ?? "-"}${result.detail ? `: ${result.detail}` : ""}\n`,
    );
  if (url) {
    for (const result of await replayEvents(url, events)) print(url, result);
    return 0;
  }
  const selection = catalog.selectFunctions(process.env.FUNCTIONS);
  if (!selection.ok) throw new Error(selection.message);
  const log = createLogger({ level: process.env.LOG_LEVEL ?? "warn", destination: process.stderr });
  const server = await startServer({
    functions: await catalog.loadFunctions(selection.names),
    deps: processDeps(log),
    port: 0,
    host: "127.0.0.1",
  });
  try {
    const routes = await loadTriggerRoutes();
    for (const ce of events) {
      const targets = routeEvent(routes, ce).filter((name) => selection.names.includes(name as never));
      if (targets.length === 0) process.stdout.write(`--- (no trigger) ${ce.type} ${ce.id}\n`);
      for (const target of targets) {
        const [result] = await replayEvents(`http://127.0.0.1:${server.port}/${target}`, [ce]);
        if (result) print(target, result);
      }
    }
  } finally {
    await server.close();
  }
  return 0;
}
