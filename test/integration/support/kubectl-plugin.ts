// The kubectl plugin's single executable (scripts/build-plugin.ts), run as a user would from a
// machine shell with only a kubeconfig: no checkout as the working directory, no Node on PATH, a
// home of its own.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const checkout = fileURLToPath(new URL("../../../", import.meta.url));
export const pluginExecutable = join(checkout, "dist", "kubectl-nats_operator");

export interface PluginShell {
  /** The shell's HOME (and working directory), removed by `close`. */
  home: string;
  /** Runs `kubectl-nats_operator args…`; rejects with { code, stdout, stderr } on a non-zero exit. */
  plugin(...args: string[]): Promise<string>;
  close(): void;
}

/** Builds the executable (a no-op when npm test built it from the same sources) and opens a shell for it. */
export async function pluginShell(): Promise<PluginShell> {
  await run(process.execPath, ["scripts/build-plugin.ts"], { cwd: checkout, timeout: 300_000 });
  const home = mkdtempSync(join(tmpdir(), "kubectl-plugin-home-"));
  const options = { cwd: home, env: { KUBECONFIG: process.env.KUBECONFIG ?? "", HOME: home, PATH: "/usr/bin:/bin" } };
  return {
    home,
    plugin: async (...args) => (await run(pluginExecutable, args, options)).stdout,
    close: () => rmSync(home, { recursive: true, force: true }),
  };
}
