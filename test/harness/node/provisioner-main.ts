// The node's storage provisioner as a process of its own (storage.ts), so that
// it outlives the `cluster:up` that started it:
//   node test/harness/node/provisioner-main.ts <kubeconfig> <node name> <volumes dir>
import { KubeConfig, CoreV1Api } from "@kubernetes/client-node";
import { provisionOnce } from "./storage.ts";
import { sleep, errorMessage } from "../wait.ts";

const [kubeconfig, nodeName, volumesDir] = process.argv.slice(2);
if (kubeconfig === undefined || nodeName === undefined || volumesDir === undefined) {
  process.stderr.write("usage: provisioner-main.ts <kubeconfig> <node name> <volumes dir>\n");
  process.exit(2);
}
const kc = new KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(CoreV1Api);
let stopping = false;
process.on("SIGTERM", () => (stopping = true));
while (!stopping) {
  await provisionOnce(core, nodeName, volumesDir).catch((err: unknown) =>
    process.stderr.write(`${new Date().toISOString()} provisioner: ${errorMessage(err)}\n`),
  );
  await sleep(500);
}
