// Turning a Pod's nats container into a nats-server command line that runs
// on this machine:
//  - every absolute path (in args and in the config file and its includes)
//    refers to the container's filesystem, which is <root> here, so it is
//    prefixed with <root>; volumes are symlinked into <root> at their mount paths;
//  - listen addresses 0.0.0.0 (and bare ports) become the pod's loopback IP,
//    and `-a <ip>` binds the client port there (the monitor port follows it),
//    so several "pods" share the default ports 4222/6222/8222 without clashing.
// The config is rewritten into a copy next to the original (".harness-<name>"),
// so relative includes still resolve.
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import type { V1Container } from "@kubernetes/client-node";

/** The container run as a real nats-server: named "nats", or a nats / nats-server image. */
export function isNatsContainer(c: V1Container): boolean {
  if (c.name === "nats") return true;
  const image = c.image ?? "";
  const last = image.slice(image.lastIndexOf("/") + 1);
  return /^nats(-server)?([:@]|$)/.test(last);
}

/**
 * The nats-server binary for an image: the build of the version its tag names when the harness
 * has one (a version move runs two), else the default build.
 */
export function natsBinaryFor(image: string | undefined, fallback: string, byVersion: Record<string, string>): string {
  const tag = /:v?(\d+\.\d+\.\d+)(?:[-@]|$)/.exec(image ?? "")?.[1];
  return (tag !== undefined ? byVersion[tag] : undefined) ?? fallback;
}

export class UnsupportedCommandError extends Error {}

/** nats-server arguments of the container (command, when it is nats-server, plus args). */
export function natsServerArgs(c: V1Container): string[] {
  const command = c.command ?? [];
  if (command.length === 0) return [...(c.args ?? [])];
  if (basename(command[0] ?? "") === "nats-server") return [...command.slice(1), ...(c.args ?? [])];
  throw new UnsupportedCommandError(`command ${JSON.stringify(command)} is not nats-server`);
}

/** Prefixes an absolute container path with the pod's root. */
export function hostPath(root: string, containerPath: string): string {
  return join(root, containerPath);
}

const ADDR_FLAGS = new Set(["-a", "--a", "-addr", "--addr", "-net", "--net"]);
const CONFIG_FLAGS = new Set(["-c", "--c", "-config", "--config"]);

export function rewriteArg(arg: string, root: string, ip: string): string {
  let out = arg.replace(/\b0\.0\.0\.0\b/g, ip);
  if (out.startsWith("/") && !out.startsWith("//")) return hostPath(root, out);
  const eq = out.lastIndexOf("=");
  if (eq >= 0 && out[eq + 1] === "/" && out[eq + 2] !== "/")
    out = out.slice(0, eq + 1) + hostPath(root, out.slice(eq + 1));
  return out;
}

/** Rewrites config text; returns the text and the absolute host paths it now mentions. */
export function rewriteConfigText(text: string, root: string, ip: string): { text: string; paths: string[] } {
  const paths: string[] = [];
  const lines = text.split("\n").map((line) => {
    if (/^\s*(#|\/\/)/.test(line) || /^\s*include\s/.test(line) || /\bhttp_base_path\b/.test(line)) return line;
    let l = line.replace(/\b0\.0\.0\.0\b/g, ip);
    // listen: 6222 / listen: ":6222" -> listen: "<ip>:6222"
    l = l.replace(
      /(\blisten\s*[:=]?\s*)(["']?):?(\d+)\2(?=\s*([,}#]|\/\/|$))/g,
      (_m, pre: string, q: string, port: string) => `${pre}${q || '"'}${ip}:${port}${q || '"'}`,
    );
    l = l.replace(/(^|[\s"'=:,[(])(\/(?!\/)[^\s"',\]});]*)/g, (_m, pre: string, p: string) => {
      const hp = hostPath(root, p);
      paths.push(hp);
      return `${pre}${hp}`;
    });
    return l;
  });
  return { text: lines.join("\n"), paths };
}

/**
 * Writes the rewritten copy of the config at `file` (a host path) and of
 * everything it includes; returns the copy's path.
 */
export async function renderConfig(file: string, root: string, ip: string, depth = 0): Promise<string> {
  if (depth > 10) throw new Error(`include nesting too deep at ${file}`);
  const dir = dirname(file);
  const original = await readFile(file, "utf8");
  const { text, paths } = rewriteConfigText(original, root, ip);
  for (const p of paths) await mkdir(dirname(p), { recursive: true }).catch(() => undefined);
  let out = "";
  let last = 0;
  for (const m of text.matchAll(/^(\s*include\s+)(["']?)([^"'\s;]+)\2/gm)) {
    const target = join(dir, m[3] ?? ""); // nats resolves includes against the including file's directory
    const copy = await renderConfig(target, root, ip, depth + 1);
    out += text.slice(last, m.index) + `${m[1]}"${relative(dir, copy)}"`;
    last = m.index + m[0].length;
  }
  out += text.slice(last);
  const copy = join(dir, `.harness-${basename(file)}`);
  await writeFile(copy, out);
  return copy;
}

export interface PreparedArgs {
  argv: string[];
  /** Host path of the original config file, if one was given. */
  configFile?: string;
}

/** The final nats-server argv for a pod at `ip` whose filesystem is `root`. */
export async function prepareNatsArgs(args: string[], root: string, ip: string): Promise<PreparedArgs> {
  const out: string[] = [];
  let configFile: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    const [flag, inline] =
      arg.startsWith("-") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    if (ADDR_FLAGS.has(flag)) {
      if (inline === undefined) i++;
      continue; // replaced by -a <ip> below
    }
    if (CONFIG_FLAGS.has(flag)) {
      const value = inline ?? args[++i];
      if (value === undefined) throw new Error(`${flag} without a value`);
      configFile = value.startsWith("/") ? hostPath(root, value) : join(root, value);
      out.push("--config", await renderConfig(configFile, root, ip));
      continue;
    }
    const rewritten = rewriteArg(arg, root, ip);
    if (rewritten !== arg && rewritten.includes(root)) {
      const p = rewritten.slice(rewritten.indexOf(root));
      await mkdir(dirname(p), { recursive: true }).catch(() => undefined);
    }
    out.push(rewritten);
  }
  out.push("-a", ip);
  return configFile === undefined ? { argv: out } : { argv: out, configFile };
}

const SIGNALS: Record<string, NodeJS.Signals> = {
  ldm: "SIGUSR2",
  stop: "SIGKILL",
  quit: "SIGINT",
  term: "SIGTERM",
  reopen: "SIGUSR1",
  reload: "SIGHUP",
};

/**
 * If an exec hook is `nats-server --signal <sig>[=<pid>]` (any of -sl, --sl,
 * --signal, with or without "="), the signal to send to the running server.
 */
export function natsSignalCommand(command: string[] | undefined): NodeJS.Signals | undefined {
  if (command === undefined || command.length === 0 || basename(command[0] ?? "") !== "nats-server") return undefined;
  for (let i = 1; i < command.length; i++) {
    const arg = command[i] ?? "";
    const m = /^--?(?:sl|signal)(?:=(.*))?$/.exec(arg);
    if (m === null) continue;
    const value = m[1] ?? command[i + 1];
    if (value === undefined) return undefined;
    return SIGNALS[(value.split("=")[0] ?? "").toLowerCase()];
  }
  return undefined;
}
