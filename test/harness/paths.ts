// Locations inside the repository.
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

/** The repository root (two levels above this file). */
export const repoRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Where `cli.ts up` records a running control plane (git-ignored): the unnamed one in state.json,
 * one started with `--name <n>` in state-<n>.json, so several run side by side.
 */
export function cliStateFile(name?: string): string {
  return resolve(repoRoot, ".cache", "harness", name === undefined ? "state.json" : `state-${name}.json`);
}
