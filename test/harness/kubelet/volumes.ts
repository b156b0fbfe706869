// Volumes of a Pod, materialised as directories:
//   configMap, secret, projected, downwardAPI -> files rendered into <podDir>/volumes/<name>
//   emptyDir (and anything unsupported, e.g. hostPath) -> an empty <podDir>/volumes/<name>
//   persistentVolumeClaim -> <workDir>/pvc/<namespace>/<claim>-<uid>, which outlives the Pod
import { mkdir, rm, writeFile, readdir, chmod } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import { createHash } from "node:crypto";
import type { V1KeyToPath, V1Pod, V1Volume } from "@kubernetes/client-node";
import type { ObjectSource } from "./objects.ts";
import { fieldRefValue, resourceFieldRefValue, type PodAddresses } from "./fieldref.ts";

/** Relative path -> contents and mode. */
export type FileSet = Map<string, { data: Buffer; mode: number }>;

export interface MaterialisedVolume {
  name: string;
  hostPath: string;
  kind: "files" | "emptyDir" | "pvc" | "unsupported";
  /** For "files" volumes: hash of the rendered content (to notice updates). */
  hash?: string;
  claimName?: string;
}

function decodeMap(data: Record<string, string> | undefined, base64: boolean): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(data ?? {}))
    out.set(k, base64 ? Buffer.from(v, "base64") : Buffer.from(v, "utf8"));
  return out;
}

function project(
  files: FileSet,
  source: Map<string, Buffer>,
  items: V1KeyToPath[] | undefined,
  defaultMode: number,
  what: string,
  optional: boolean,
): void {
  if (items === undefined || items.length === 0) {
    for (const [k, v] of source) files.set(k, { data: v, mode: defaultMode });
    return;
  }
  for (const item of items) {
    const v = source.get(item.key);
    if (v === undefined) {
      if (optional) continue;
      throw new Error(`${what}: key ${item.key} not found`);
    }
    files.set(item.path, { data: v, mode: item.mode ?? defaultMode });
  }
}

/** The files a configMap/secret/projected/downwardAPI volume holds; undefined for other kinds. */
export async function renderFiles(
  pod: V1Pod,
  volume: V1Volume,
  addr: PodAddresses,
  objects: ObjectSource,
): Promise<FileSet | undefined> {
  const ns = pod.metadata?.namespace ?? "default";
  const files: FileSet = new Map();
  const fromConfigMap = async (
    name: string,
    items: V1KeyToPath[] | undefined,
    optional: boolean,
    mode: number,
  ): Promise<void> => {
    const cm = await objects.configMap(ns, name);
    if (cm === undefined) {
      if (optional) return;
      throw new Error(`configmap "${name}" not found`);
    }
    const all = decodeMap(cm.data, false);
    for (const [k, v] of decodeMap(cm.binaryData, true)) all.set(k, v);
    project(files, all, items, mode, `configmap ${name}`, optional);
  };
  const fromSecret = async (
    name: string,
    items: V1KeyToPath[] | undefined,
    optional: boolean,
    mode: number,
  ): Promise<void> => {
    const s = await objects.secret(ns, name);
    if (s === undefined) {
      if (optional) return;
      throw new Error(`secret "${name}" not found`);
    }
    const all = decodeMap(s.data, true);
    for (const [k, v] of decodeMap(s.stringData, false)) all.set(k, v);
    project(files, all, items, mode, `secret ${name}`, optional);
  };
  const fromDownward = (
    items: {
      path: string;
      fieldRef?: { fieldPath: string; apiVersion?: string };
      resourceFieldRef?: { resource: string; containerName?: string; divisor?: unknown };
      mode?: number;
    }[],
    mode: number,
  ): void => {
    for (const item of items) {
      let value = "";
      if (item.fieldRef !== undefined) value = fieldRefValue(pod, item.fieldRef, addr);
      else if (item.resourceFieldRef !== undefined) {
        const ref = item.resourceFieldRef;
        const c = pod.spec?.containers.find((x) => x.name === ref.containerName) ?? pod.spec?.containers[0];
        value = resourceFieldRefValue(c, ref as never);
      }
      files.set(item.path, { data: Buffer.from(value), mode: item.mode ?? mode });
    }
  };

  if (volume.configMap !== undefined) {
    const v = volume.configMap;
    await fromConfigMap(v.name ?? "", v.items, v.optional === true, v.defaultMode ?? 0o644);
    return files;
  }
  if (volume.secret !== undefined) {
    const v = volume.secret;
    await fromSecret(v.secretName ?? "", v.items, v.optional === true, v.defaultMode ?? 0o644);
    return files;
  }
  if (volume.downwardAPI !== undefined) {
    fromDownward((volume.downwardAPI.items ?? []) as never, volume.downwardAPI.defaultMode ?? 0o644);
    return files;
  }
  if (volume.projected !== undefined) {
    const mode = volume.projected.defaultMode ?? 0o644;
    for (const src of volume.projected.sources ?? []) {
      if (src.configMap !== undefined)
        await fromConfigMap(src.configMap.name ?? "", src.configMap.items, src.configMap.optional === true, mode);
      if (src.secret !== undefined)
        await fromSecret(src.secret.name ?? "", src.secret.items, src.secret.optional === true, mode);
      if (src.downwardAPI !== undefined) fromDownward((src.downwardAPI.items ?? []) as never, mode);
      if (src.serviceAccountToken !== undefined) {
        // No token is minted: pods run as plain processes and never call the API server.
        files.set(src.serviceAccountToken.path, { data: Buffer.from(""), mode });
      }
    }
    return files;
  }
  return undefined;
}

export function hashFiles(files: FileSet): string {
  const h = createHash("sha256");
  for (const [k, v] of [...files].sort(([a], [b]) => a.localeCompare(b)))
    h.update(k).update("\0").update(v.data).update("\0");
  return h.digest("hex");
}

/** Replaces the contents of `dir` with `files` (keeps files whose name starts with ".harness-"). */
export async function writeFiles(dir: string, files: FileSet): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const entry of await readdir(dir)) {
    if (!entry.startsWith(".harness-")) await rm(join(dir, entry), { recursive: true, force: true });
  }
  for (const [rel, { data, mode }] of files) {
    const target = normalize(join(dir, rel));
    if (!target.startsWith(`${dir}/`)) throw new Error(`volume path ${rel} escapes the volume`);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, data);
    await chmod(target, mode & 0o777);
  }
}

export interface VolumeContext {
  podDir: string;
  pvcRoot: string;
  addr: PodAddresses;
  objects: ObjectSource;
}

/** Materialises every volume of the Pod; throws (the Pod stays ContainerCreating) if a required source is missing. */
export async function materialiseVolumes(pod: V1Pod, ctx: VolumeContext): Promise<Map<string, MaterialisedVolume>> {
  const out = new Map<string, MaterialisedVolume>();
  const ns = pod.metadata?.namespace ?? "default";
  for (const volume of pod.spec?.volumes ?? []) {
    const ownDir = join(ctx.podDir, "volumes", volume.name);
    if (volume.persistentVolumeClaim !== undefined) {
      const claimName = volume.persistentVolumeClaim.claimName;
      // A new claim of an old name is a new, empty volume, as a provisioner would make it.
      const claim = await ctx.objects.claim(ns, claimName);
      if (claim?.metadata?.uid === undefined) throw new Error(`persistentvolumeclaim "${claimName}" not found`);
      const hostPath = join(ctx.pvcRoot, ns, `${claimName}-${claim.metadata.uid}`);
      await mkdir(hostPath, { recursive: true });
      out.set(volume.name, { name: volume.name, hostPath, kind: "pvc", claimName });
      continue;
    }
    const files = await renderFiles(pod, volume, ctx.addr, ctx.objects);
    if (files !== undefined) {
      await writeFiles(ownDir, files);
      out.set(volume.name, { name: volume.name, hostPath: ownDir, kind: "files", hash: hashFiles(files) });
      continue;
    }
    await mkdir(ownDir, { recursive: true });
    out.set(volume.name, {
      name: volume.name,
      hostPath: ownDir,
      kind: volume.emptyDir !== undefined ? "emptyDir" : "unsupported",
    });
  }
  return out;
}
