/**
 * `npm run test:safety`: the fault-injection files (test/integration/safety/) on the real node,
 * run again and again with a fresh seed each time (NATS_OPERATOR_SAFETY_RUNS, default 5), after
 * `npm test` has built the infrastructure. Prints each run's `safety:` lines (seed, fault, what
 * was acknowledged and checked) and ends non-zero when any run failed; a failed run is replayed
 * with NATS_OPERATOR_SAFETY_SEED=<its seed>.
 */
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";

const runs = Number(process.env["NATS_OPERATOR_SAFETY_RUNS"] ?? 5);
let failed = 0;
for (let run = 1; run <= runs; run++) {
  const seed = process.env["NATS_OPERATOR_SAFETY_SEED"] ?? String(randomInt(2 ** 31));
  const jest = spawnSync(
    "npx",
    ["jest", "-c", "jest.integration.config.js", "--runInBand", "test/integration/safety"],
    {
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
      env: {
        ...process.env,
        NATS_OPERATOR_HARNESS_NODE: "real",
        NATS_OPERATOR_SAFETY_SEED: seed,
        UV_THREADPOOL_SIZE: "64",
        NODE_OPTIONS: "--experimental-vm-modules --no-warnings",
      },
    },
  );
  const output = `${jest.stdout}${jest.stderr}`;
  const lines = output.split("\n").filter((line) => line.startsWith("safety:"));
  const ok = jest.status === 0;
  if (!ok) failed++;
  process.stdout.write(`run ${run} of ${runs}, seed ${seed}: ${ok ? "passed" : "FAILED"}\n`);
  for (const line of lines) process.stdout.write(`  ${line}\n`);
  if (!ok)
    process.stdout.write(
      output
        .split("\n")
        .filter((line) => /✕|●/.test(line))
        .join("\n") + "\n",
    );
}
process.stdout.write(`\n${runs - failed} of ${runs} runs passed\n`);
process.exitCode = failed === 0 ? 0 : 1;
