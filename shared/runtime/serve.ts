import { createLogger } from "../telemetry/logger.ts";
import { startTelemetry } from "../telemetry/sdk.ts";
import type { FunctionCatalog } from "./catalog.ts";
import { processDeps } from "./deps.ts";
import { startServer } from "./server.ts";
import { onTermination } from "./shutdown.ts";

/**
 * The production entry point: one HTTP server hosting the functions the
 * FUNCTIONS variable names (all when unset), on PORT (8080 by default, as
 * Knative Serving sets it), on every address unless HOST names one. NATS_OPERATOR_EVENT_LOG names a
 * JSON Lines file that records every event received (off by default), for `nats-operator replay`.
 */
export async function serve(catalog: FunctionCatalog, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const log = createLogger();
  const selection = catalog.selectFunctions(env.FUNCTIONS);
  if (!selection.ok) {
    log.fatal(selection.message);
    process.exitCode = 2;
    return;
  }
  const stopTelemetry = await startTelemetry(
    selection.names.length === 1 ? `nats-operator-${selection.names[0]}` : "nats-operator",
  );
  const functions = await catalog.loadFunctions(selection.names);
  const server = await startServer({
    functions,
    deps: processDeps(log),
    port: Number(env.PORT ?? 8080),
    ...(env.HOST !== undefined && env.HOST !== "" ? { host: env.HOST } : {}),
    ...(env.NATS_OPERATOR_EVENT_LOG ? { eventLog: env.NATS_OPERATOR_EVENT_LOG } : {}),
  });
  log.info({ port: server.port, functions: selection.names }, "serving CloudEvents");
  onTermination(log, async () => {
    await server.close();
    await Promise.all(functions.map((fn) => fn.shutdown?.()));
    await stopTelemetry();
  });
}
