/**
 * Runtime benchmark: cold start (process spawn to the first event answered)
 * and warm per-event overhead of the runtime (HTTP server, CloudEvent
 * decoding, dispatch, telemetry hooks, logging) hosting a no-op function;
 * and the cold start of each real function as the image runs it (the bundle
 * `npm run build` makes) against the TypeScript sources, from spawn to the
 * first /healthz answer (what Knative waits for before it routes an event).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { clusterEvent } from "../test/support/events.ts";
import { postEvent } from "../shared/local/replay.ts";
import { functionNames } from "../functions/catalog.ts";
import { buildImageSources, checkout, entryFile } from "../scripts/build.ts";
import { join } from "node:path";
import { freePort } from "../test/harness/ports.ts";

const coldRuns = Number(process.env.BENCH_COLD_RUNS ?? 15);
const warmEvents = Number(process.env.BENCH_WARM_EVENTS ?? 2000);

function startServe(port: number) {
  return spawn(process.execPath, ["test/support/slow-server.ts"], {
    env: { ...process.env, PORT: String(port), SLOW_MS: "0", LOG_LEVEL: "silent" },
    stdio: "ignore",
  });
}

/** Posts until the server answers; returns the time from spawn to that answer. */
async function coldStart(): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = startServe(port);
  const event = clusterEvent({ type: "dev.knative.apiserver.resource.add" });
  for (;;) {
    try {
      const result = await postEvent(`http://127.0.0.1:${port}/`, event);
      if (result.status !== 200) throw new Error(`unexpected ${result.status}`);
      break;
    } catch (error) {
      if (!(error instanceof TypeError)) throw error; // fetch failed: not listening yet
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
  const elapsed = performance.now() - started;
  child.kill("SIGTERM");
  await once(child, "exit");
  return elapsed;
}

async function warmOverhead(): Promise<number[]> {
  const port = await freePort();
  const child = startServe(port);
  const event = clusterEvent({ type: "dev.knative.apiserver.resource.add" });
  const url = `http://127.0.0.1:${port}/`;
  for (;;) {
    try {
      await postEvent(url, event);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  for (let i = 0; i < 200; i++) await postEvent(url, event); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < warmEvents; i++) {
    const started = performance.now();
    await postEvent(url, event);
    samples.push(performance.now() - started);
  }
  child.kill("SIGTERM");
  await once(child, "exit");
  return samples;
}

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/** Spawn of `<entry> serve` hosting one function, to its first /healthz answer. */
async function functionColdStart(entry: string, name: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [entry, "serve"], {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", FUNCTIONS: name, LOG_LEVEL: "silent" },
    stdio: "ignore",
  });
  for (;;) {
    try {
      await (await fetch(`http://127.0.0.1:${port}/healthz`)).text();
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
  const elapsed = performance.now() - started;
  child.kill("SIGTERM");
  await once(child, "exit");
  return elapsed;
}

const functionRuns = Number(process.env.BENCH_FUNCTION_COLD_RUNS ?? 9);
await buildImageSources();
const image = join(checkout, "dist", "nats-operator", entryFile);
const sources = join(checkout, "bin", "nats-operator.ts");
const perFunction: { name: string; image: number[]; sources: number[] }[] = [];
for (const name of functionNames) {
  const samples = { name, image: [] as number[], sources: [] as number[] };
  // Alternated, so both sides see the same load.
  for (let i = 0; i < functionRuns; i++) {
    samples.image.push(await functionColdStart(image, name));
    samples.sources.push(await functionColdStart(sources, name));
  }
  perFunction.push(samples);
}

const cold: number[] = [];
for (let i = 0; i < coldRuns; i++) cold.push(await coldStart());
const warm = await warmOverhead();

const row = (name: string, samples: number[], target: string) =>
  `| ${name} | ${samples.length} | ${quantile(samples, 0.5).toFixed(2)} | ${quantile(samples, 0.9).toFixed(2)} | ${target} |`;
process.stdout.write(
  [
    `runtime benchmark on ${(await import("node:os")).cpus().length} cores, Node ${process.version}`,
    "| measure | samples | p50 ms | p90 ms | target |",
    "|---|---|---|---|---|",
    row("cold start: spawn to first event answered", cold, "p50 <= 300 ms"),
    row("warm per-event round trip (no-op reconcile)", warm, "p50 <= 2 ms"),
    ...perFunction.flatMap(({ name, image: built, sources: ts }) => [
      row(`${name} cold start, image (dist/), spawn to /healthz`, built, "p50 <= 150 ms"),
      row(`${name} cold start, TypeScript sources`, ts, ""),
    ]),
  ].join("\n") + "\n",
);
