// The image, checked without `docker build` (there is no Docker here): what the Dockerfile copies
// is exactly what the build compiles and what the bundle reads at run time, and the bundle the
// build stage makes serves every function.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Metafile } from "esbuild";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { functionNames } from "../functions/catalog.ts";
import { buildImageSources, checkout, entryFile } from "./build.ts";
import { freePort } from "../test/harness/ports.ts";

interface Copy {
  stage: string;
  from?: string;
  sources: string[];
}

/** Every COPY of the Dockerfile, with the stage it belongs to. */
function dockerfileCopies(text: string): Copy[] {
  const copies: Copy[] = [];
  let stage = "";
  for (const line of text.split("\n").map((l) => l.trim())) {
    const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) stage = from[1] ?? "runtime";
    const copy = /^COPY\s+(?:--from=(\S+)\s+)?(.+)$/i.exec(line);
    if (!copy) continue;
    const words = (copy[2] ?? "").split(/\s+/);
    copies.push({ stage, ...(copy[1] ? { from: copy[1] } : {}), sources: words.slice(0, -1) });
  }
  return copies;
}

const dockerfile = dockerfileCopies(readFileSync(join(checkout, "Dockerfile"), "utf8"));
const copiedInto = (stage: string) =>
  dockerfile.filter((c) => c.stage === stage && c.from === undefined).flatMap((c) => c.sources);
const covered = (sources: readonly string[], file: string) =>
  sources.some((s) => file === s || file.startsWith(`${s.replace(/\/$/, "")}/`));

// Two levels below the checkout, where the bundle finds package.json and knative/ as in the image.
const outdir = join(checkout, "dist", `image-test-${process.pid}`);
let metafile: Metafile;

beforeAll(async () => {
  metafile = await buildImageSources(outdir);
}, 120_000);

afterAll(() => rm(outdir, { recursive: true, force: true }));

describe("the image", () => {
  it("compiles only sources the build stage copies, and no test code", () => {
    const ours = Object.keys(metafile.inputs).filter((input) => !input.includes("node_modules/"));
    expect(ours.filter((input) => !covered(copiedInto("build"), input))).toEqual([]);
    expect(ours.filter((input) => input.endsWith(".test.ts") || input.startsWith("test/"))).toEqual([]);
  });

  it("carries every function of the catalog, each in a chunk loaded only when selected", () => {
    const entry = metafile.outputs[Object.keys(metafile.outputs).find((o) => o.endsWith(`/${entryFile}`)) ?? ""];
    expect(entry).toBeDefined();
    for (const name of functionNames) {
      const chunk = Object.entries(metafile.outputs).find(([, o]) => o.entryPoint === `functions/${name}/index.ts`);
      expect(chunk?.[0]).toContain(name);
      // Not in the entry's static imports: a pod serving another function never parses it.
      expect(entry?.imports.filter((i) => i.kind === "import-statement").map((i) => i.path)).not.toContain(chunk?.[0]);
    }
  });

  it("loads no API schema library when a function starts: the schemas are for generating CRDs", () => {
    const chunkOf = (name: string) =>
      Object.keys(metafile.outputs).find((o) => metafile.outputs[o]?.entryPoint === `functions/${name}/index.ts`) ?? "";
    const loaded = (chunk: string, seen = new Set<string>()): Set<string> => {
      if (seen.has(chunk)) return seen;
      seen.add(chunk);
      for (const i of metafile.outputs[chunk]?.imports ?? []) if (i.kind === "import-statement") loaded(i.path, seen);
      return seen;
    };
    for (const name of functionNames) {
      const inputs = [...loaded(chunkOf(name))].flatMap((chunk) => Object.keys(metafile.outputs[chunk]?.inputs ?? {}));
      expect({ name, schemas: inputs.filter((input) => input.includes("node_modules/typebox/")).length }).toEqual({
        name,
        schemas: 0,
      });
    }
  });

  it("runs from what the runtime stage copies: the bundle, package.json and knative/, no node_modules", () => {
    const runtime = dockerfile.filter((c) => c.stage === "runtime");
    expect(runtime.filter((c) => c.from === "build").flatMap((c) => c.sources)).toEqual(["/app/dist/nats-operator"]);
    expect(copiedInto("runtime").sort()).toEqual(["knative", "package.json"]);
    const dockerignore = readFileSync(join(checkout, ".dockerignore"), "utf8");
    for (const source of [...copiedInto("build"), ...copiedInto("runtime")])
      expect(dockerignore).toContain(`!${source.replace(/\/$/, "")}`);
  });

  it.each(functionNames)(
    "serves %s from the bundle alone: /healthz answers",
    async (name) => {
      const port = await freePort();
      const child = spawn(process.execPath, [join(outdir, entryFile), "serve"], {
        cwd: checkout,
        env: {
          PATH: process.env.PATH ?? "",
          PORT: String(port),
          HOST: "127.0.0.1",
          FUNCTIONS: name,
          LOG_LEVEL: "silent",
        },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")));
      try {
        const status = await firstAnswer(`http://127.0.0.1:${port}/healthz`, () => child.exitCode !== null);
        expect({ status, stderr }).toEqual({ status: 200, stderr: "" });
      } finally {
        child.kill("SIGTERM");
        if (child.exitCode === null) await once(child, "exit");
      }
    },
    30_000,
  );
});

/** The status of the first answer, polling until the port accepts or the process has exited. */
async function firstAnswer(url: string, exited: () => boolean): Promise<number | "exited"> {
  for (;;) {
    if (exited()) return "exited";
    try {
      const response = await fetch(url);
      await response.text();
      return response.status;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
