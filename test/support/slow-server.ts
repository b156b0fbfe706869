// A server process hosting one function that takes SLOW_MS to answer (0: a
// no-op), with the production logger, dependencies and shutdown wiring, on
// PORT (default: any free port); prints its port once listening.
import { processDeps } from "../../shared/runtime/deps.ts";
import { done } from "../../shared/runtime/outcome.ts";
import { startServer } from "../../shared/runtime/server.ts";
import { onTermination } from "../../shared/runtime/shutdown.ts";
import { createLogger } from "../../shared/telemetry/logger.ts";
import { scriptedFunction } from "./functions.ts";

const log = createLogger({ destination: process.stderr });
const delay = Number(process.env.SLOW_MS ?? 1000);
const fn = scriptedFunction(() =>
  delay === 0
    ? Promise.resolve(done("no-op"))
    : new Promise((resolve) => setTimeout(() => resolve(done("finished after SIGTERM")), delay)),
);
const server = await startServer({
  functions: [fn],
  deps: processDeps(log),
  port: Number(process.env.PORT ?? 0),
  host: "127.0.0.1",
});
onTermination(log, () => server.close());
process.stdout.write(`${server.port}\n`);
