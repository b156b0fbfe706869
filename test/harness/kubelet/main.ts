// Entry point of the kubelet process: node test/harness/kubelet/main.ts <config.json>
import { readFileSync } from "node:fs";
import { Kubelet, type KubeletConfig } from "./kubelet.ts";
import { fileLogger } from "./logger.ts";

const configPath = process.argv[2];
if (configPath === undefined) {
  process.stderr.write("usage: kubelet/main.ts <config.json>\n");
  process.exit(2);
}
const config = JSON.parse(readFileSync(configPath, "utf8")) as KubeletConfig;
const log = fileLogger(config.logFile);
const kubelet = new Kubelet(config, log);

let stopping = false;
const shutdown = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  log(`received ${signal}, stopping`);
  kubelet.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      log(`stop failed: ${String(err)}`);
      process.exit(1);
    },
  );
};
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
process.on("unhandledRejection", (err) =>
  log(`unhandled rejection: ${err instanceof Error ? err.stack : String(err)}`),
);

kubelet.start().catch((err: unknown) => {
  log(`start failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
});
