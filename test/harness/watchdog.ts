// Stops a control plane whose owner died: node test/harness/watchdog.ts <stateFile> <ownerPid>
// Jest's global setup starts one, so that a killed test run (Ctrl-C, OOM,
// crash before globalTeardown) does not leave etcd, kube-apiserver and
// nats-servers behind. It exits on its own once the work dir is gone (normal
// teardown).
import { existsSync } from "node:fs";
import { readState } from "./state.ts";
import { stopControlPlane } from "./control-plane.ts";
import { isAlive } from "./processes.ts";

const [stateFile, ownerArg] = process.argv.slice(2);
const owner = Number(ownerArg);
if (stateFile === undefined || !Number.isInteger(owner)) {
  process.stderr.write("usage: watchdog.ts <stateFile> <ownerPid>\n");
  process.exit(2);
}

const timer = setInterval(() => {
  if (!existsSync(stateFile)) {
    clearInterval(timer);
    return;
  }
  if (isAlive(owner)) return;
  clearInterval(timer);
  void (async () => {
    const state = await readState(stateFile);
    if (state !== undefined) {
      process.stderr.write(`${new Date().toISOString()} owner ${owner} is gone; stopping ${state.workDir}\n`);
      await stopControlPlane(state, { keepWorkDir: process.env["NATS_OPERATOR_HARNESS_KEEP"] === "1" });
    }
  })();
}, 2_000);
