/**
 * `npm run build`: what the image runs. bin/nats-operator.ts and everything it imports, the
 * dependencies included, compiled to JavaScript in dist/nats-operator/, one chunk per lazily
 * imported module (each function, each command), so a pod that serves one function loads only its
 * code and starts without type stripping. The image then needs no node_modules.
 *
 * The output sits two levels below the checkout, as the sources in shared/<area>/ do, so the
 * files they find next to the checkout (package.json, knative/) resolve the same way from it.
 */
import { build, type Metafile } from "esbuild";
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";

export const checkout = resolve(import.meta.dirname, "..");
export const entryPoint = "bin/nats-operator.ts";
export const entryFile = "nats-operator.mjs";

/** Builds into `outdir` (dist/nats-operator by default); returns esbuild's account of the inputs. */
export async function buildImageSources(outdir = join(checkout, "dist", "nats-operator")): Promise<Metafile> {
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: checkout,
    entryPoints: { "nats-operator": entryPoint },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node24",
    outExtension: { ".js": ".mjs" },
    // CommonJS dependencies call require() for Node's built-in modules; an ES module has none.
    banner: {
      js: "import { createRequire as __natsOperatorRequire } from 'node:module'; const require = __natsOperatorRequire(import.meta.url);",
    },
    metafile: true,
    logLevel: "warning",
  });
  return result.metafile;
}

if (import.meta.main) {
  const metafile = await buildImageSources();
  const bytes = Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  process.stdout.write(
    `build: ${Object.keys(metafile.inputs).length} modules into ${Object.keys(metafile.outputs).length} files, ` +
      `${(bytes / 1e6).toFixed(1)} MB in dist/nats-operator/\n`,
  );
}
