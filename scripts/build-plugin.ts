/**
 * `npm run build:plugin`: the kubectl plugin (bin/kubectl-nats_operator.ts) as one executable that
 * needs no Node and no checkout, by Node's single-executable applications: esbuild bundles the
 * plugin and its dependencies into one CommonJS file (what Node 24's SEA runs), `node
 * --experimental-sea-config` makes the blob, and postject injects it into a copy of this Node
 * binary. Output: dist/kubectl-nats_operator (the bundle, runnable with any Node 24, is in
 * .cache/kubectl-plugin/).
 *
 * Cached: the executable is rebuilt only when the bundle or the Node binary differ from the ones it
 * was made from (the stamp beside it), so `npm test` pays for esbuild (about a second) and not for
 * the injection when nothing changed.
 */
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const checkout = resolve(import.meta.dirname, "..");
export const pluginExecutable = join(checkout, "dist", "kubectl-nats_operator");
const work = join(checkout, ".cache", "kubectl-plugin");
const bundle = join(work, "kubectl-nats_operator.cjs");
const blob = join(work, "sea-prep.blob");
const stamp = `${pluginExecutable}.stamp`;
// The sentinel Node's binary carries for postject (Node's SEA documentation).
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

async function bundlePlugin(): Promise<void> {
  await build({
    absWorkingDir: checkout,
    entryPoints: ["bin/kubectl-nats_operator.ts"],
    outfile: bundle,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node24",
    // The plugin reads nothing next to the checkout; import.meta is empty in CommonJS.
    logLevel: "error",
    legalComments: "none",
  });
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { stdio: ["ignore", "inherit", "inherit"] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status ?? result.signal}`);
}

/** Builds dist/kubectl-nats_operator unless the one there was made from the same bundle and Node; returns whether it built. */
export async function buildPlugin(): Promise<boolean> {
  mkdirSync(work, { recursive: true });
  mkdirSync(join(checkout, "dist"), { recursive: true });
  await bundlePlugin();
  const node = process.execPath;
  const key = createHash("sha256")
    .update(readFileSync(bundle))
    .update(`${process.version} ${statSync(node).size}`)
    .digest("hex");
  if (existsSync(pluginExecutable) && existsSync(stamp) && readFileSync(stamp, "utf8") === key) return false;
  rmSync(stamp, { force: true });
  const config = join(work, "sea-config.json");
  writeFileSync(config, JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true }));
  run(node, ["--experimental-sea-config", config]);
  rmSync(pluginExecutable, { force: true });
  copyFileSync(node, pluginExecutable);
  run(node, [
    join(checkout, "node_modules", "postject", "dist", "cli.js"),
    pluginExecutable,
    "NODE_SEA_BLOB",
    blob,
    "--sentinel-fuse",
    SEA_FUSE,
  ]);
  writeFileSync(stamp, key);
  return true;
}

if (import.meta.main) {
  const started = Date.now();
  const built = await buildPlugin();
  process.stdout.write(
    `build:plugin: ${built ? "built" : "up to date:"} ${pluginExecutable} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
  );
}
