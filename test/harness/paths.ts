// Locations inside the repository.
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

/** The repository root (two levels above this file). */
export const repoRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where `cli.ts up` records the running control plane (git-ignored). */
export const cliStateFile: string = resolve(repoRoot, ".cache", "harness", "state.json");
