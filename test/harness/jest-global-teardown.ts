// Jest globalTeardown of the "integration" project: stops the control plane
// the global setup started (by PID) and removes its work dir.
//   NATS_OPERATOR_HARNESS_KEEP=1 keeps the work dir (logs) for inspection.
import { stopControlPlane } from "./control-plane.ts";
import { readState } from "./state.ts";

export default async function globalTeardown(): Promise<void> {
  const stateFile = process.env["NATS_OPERATOR_HARNESS_STATE"];
  if (stateFile === undefined) return;
  const state = await readState(stateFile);
  if (state === undefined) return;
  const keep = process.env["NATS_OPERATOR_HARNESS_KEEP"] === "1";
  await stopControlPlane(state, { keepWorkDir: keep });
  if (keep) process.stderr.write(`test harness: kept ${state.workDir}\n`);
}
