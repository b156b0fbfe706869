// containerd's own client, `ctr`, for a running real node: in the k8s.io namespace, where the
// kubelet's images and containers are.
import { join } from "node:path";
import type { HarnessState } from "../state.ts";
import { containerdPaths } from "./containerd.ts";

/** The ctr command line for the real node of `state`. */
export function ctrCommand(state: HarnessState): { command: string; args: string[] } {
  if (state.realNode === undefined) {
    throw new Error(`test harness: run ${state.runId} has no real node (start it with node: "real")`);
  }
  return {
    command: join(state.realNode.bin, "ctr"),
    args: ["--address", containerdPaths(state.realNode.dir).socket, "--namespace", "k8s.io"],
  };
}
