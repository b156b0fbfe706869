// A FROM-scratch image written straight to an OCI image archive: one layer
// holding the given files, a config with the entrypoint, user and environment,
// and the name containerd imports it under. Deterministic (fixed owner and
// mtime), so the same inputs give the same digest.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface ScratchImage {
  /** Fully qualified, as the kubelet normalises a pod's image: "docker.io/library/nats:2.15.2". */
  name: string;
  /** Files to copy in: where in the image, from where on the host. */
  files: { path: string; source: string }[];
  entrypoint: string[];
  cmd?: string[];
  env?: string[];
  user?: string;
}

interface Blob {
  digest: string;
  size: number;
}

async function putBlob(layout: string, content: Buffer): Promise<Blob> {
  const hex = createHash("sha256").update(content).digest("hex");
  await writeFile(join(layout, "blobs", "sha256", hex), content);
  return { digest: `sha256:${hex}`, size: content.length };
}

/** Writes the image as an OCI archive at `archive`. */
export async function writeScratchImage(image: ScratchImage, archive: string): Promise<void> {
  const work = await mkdtemp(join(dirname(archive), ".image-"));
  try {
    const root = join(work, "root");
    const layout = join(work, "layout");
    await mkdir(join(layout, "blobs", "sha256"), { recursive: true });
    for (const file of image.files) {
      const target = join(root, file.path);
      await mkdir(dirname(target), { recursive: true });
      await copyFile(file.source, target);
    }
    const layerFile = join(work, "layer.tar");
    await run("tar", [
      "--create",
      "--file",
      layerFile,
      "--directory",
      root,
      "--sort=name",
      "--owner=0",
      "--group=0",
      "--numeric-owner",
      "--mtime=@0",
      ".",
    ]);
    const layer = await putBlob(layout, await readFile(layerFile));
    const config = await putBlob(
      layout,
      Buffer.from(
        JSON.stringify({
          architecture: "amd64",
          os: "linux",
          config: {
            Entrypoint: image.entrypoint,
            ...(image.cmd ? { Cmd: image.cmd } : {}),
            Env: image.env ?? ["PATH=/usr/local/bin:/usr/bin:/bin:/"],
            ...(image.user ? { User: image.user } : {}),
          },
          rootfs: { type: "layers", diff_ids: [layer.digest] },
        }),
      ),
    );
    const manifest = await putBlob(
      layout,
      Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: "application/vnd.oci.image.manifest.v1+json",
          config: { mediaType: "application/vnd.oci.image.config.v1+json", ...config },
          layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", ...layer }],
        }),
      ),
    );
    await writeFile(join(layout, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
    await writeFile(
      join(layout, "index.json"),
      JSON.stringify({
        schemaVersion: 2,
        manifests: [
          {
            mediaType: "application/vnd.oci.image.manifest.v1+json",
            ...manifest,
            annotations: { "io.containerd.image.name": image.name },
          },
        ],
      }),
    );
    await run("tar", ["--create", "--file", archive, "--directory", layout, "--sort=name", "--mtime=@0", "."]);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
