// A TCP connection attempt made from inside a pod on the real node: from the network namespace
// of one of its containers, so the packets leave from the pod's address through its veth, as a
// client in that pod would send them, and the node's NetworkPolicy rules judge them as such.
// The pod may run any image (the pause image has no shell): the attempt is this machine's node
// binary entered into the container's network namespace, nothing else of it.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { HarnessState } from "../state.ts";
import { containerdId } from "./container-faults.ts";
import { ctrCommand } from "./ctr.ts";

const run = promisify(execFile);

/** What became of the attempt: a connection, or the error code (ECONNREFUSED, ...), or a timeout. */
export type ConnectResult = "connected" | "timed out" | string;

const attempt = `
const [host, port, ms] = process.argv.slice(-3);
const socket = require("node:net").connect({ host, port: Number(port) });
socket.setTimeout(Number(ms));
socket.on("connect", () => { console.log("connected"); socket.destroy(); });
socket.on("timeout", () => { console.log("timed out"); socket.destroy(); });
socket.on("error", (err) => console.log(err.code ?? err.message));
`;

/** The host PID of a running container's task (its first process). */
async function taskPid(state: HarnessState, containerID: string): Promise<number> {
  const ctr = ctrCommand(state);
  const id = containerdId(containerID);
  const { stdout } = await run(ctr.command, [...ctr.args, "tasks", "ls"], { timeout: 30_000 });
  const line = stdout.split("\n").find((l) => l.startsWith(`${id} `));
  const pid = Number(line?.trim().split(/\s+/)[1]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`test harness: no running task for container ${id}`);
  return pid;
}

/** Opens a TCP connection to host:port from the network of the container `containerID`, and closes it. */
export async function connectFromContainer(
  state: HarnessState,
  containerID: string,
  host: string,
  port: number,
  timeoutMs = 3_000,
): Promise<ConnectResult> {
  const pid = await taskPid(state, containerID);
  const { stdout } = await run(
    "nsenter",
    [`--net=/proc/${pid}/ns/net`, "--", process.execPath, "-e", attempt, host, String(port), String(timeoutMs)],
    { timeout: timeoutMs + 30_000 },
  );
  return stdout.trim();
}
