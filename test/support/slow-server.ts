// A server process hosting one function that takes SLOW_MS to answer, with
// the production shutdown wiring; prints its port once listening.
import { startServer } from "../../shared/runtime/server.ts";
import { onTermination } from "../../shared/runtime/shutdown.ts";
import { done } from "../../shared/runtime/outcome.ts";
import { offlineDeps, scriptedFunction } from "./functions.ts";

const deps = offlineDeps();
const slow = scriptedFunction(() => new Promise((resolve) => setTimeout(() => resolve(done("finished after SIGTERM")), Number(process.env.SLOW_MS ?? 1000))));
const server = await startServer({ functions: [slow], deps, port: 0, host: "127.0.0.1" });
onTermination(deps.log, () => server.close());
process.stdout.write(`${server.port}\n`);
