/** `npm run bench`: every benchmark, one after another (they share 2 cores badly). */
import { spawnSync } from "node:child_process";

const benchmarks = [
  "bench/runtime.ts",
  "bench/resync.ts",
  "bench/rollout.ts",
  "bench/streams.ts",
  "bench/auth.ts",
  "bench/knative.ts",
  "bench/idle.ts",
];
let failed = false;
for (const file of benchmarks) {
  const result = spawnSync(process.execPath, [file], { stdio: "inherit" });
  failed ||= result.status !== 0;
}
process.exitCode = failed ? 1 : 0;
