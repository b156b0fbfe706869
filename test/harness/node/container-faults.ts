// Faults a test injects into a pod's container on the real node, through containerd: a SIGKILL
// (the kubelet restarts the container in the same pod, as after a crash), or a pause with the
// freezer (every process stopped, as SIGSTOP would, connections left open) and its resume.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { HarnessState } from "../state.ts";
import { ctrCommand } from "./ctr.ts";

const run = promisify(execFile);

/** The containerd id of a container status's `containerID` (`containerd://<id>`). */
export function containerdId(containerID: string): string {
  const match = /^containerd:\/\/([0-9a-f]+)$/.exec(containerID);
  if (!match?.[1]) throw new Error(`test harness: ${containerID} is not a containerd container`);
  return match[1];
}

async function task(state: HarnessState, ...args: string[]): Promise<void> {
  const ctr = ctrCommand(state);
  await run(ctr.command, [...ctr.args, "tasks", ...args], { timeout: 30_000 });
}

/** Kills every process of the container at once (SIGKILL to its task). */
export const killContainer = (state: HarnessState, containerID: string) =>
  task(state, "kill", "--all", "--signal", "SIGKILL", containerdId(containerID));

/** Freezes the container's processes until `resumeContainer`. */
export const pauseContainer = (state: HarnessState, containerID: string) =>
  task(state, "pause", containerdId(containerID));

export const resumeContainer = (state: HarnessState, containerID: string) =>
  task(state, "resume", containerdId(containerID));
