// `kubectl nats-operator …` (the kubectl plugin, bin/kubectl-nats_operator.ts): status, preview and
// creds, from a machine with only a kubeconfig. Everything goes through the API server with the
// kubeconfig's credentials; nothing needs in-cluster names or pod addresses.
import { parseArgs } from "node:util";
import { createKube, createTransport } from "../kube/index.ts";
import { credsCommand } from "./creds-command.ts";
import { parseResourceRef, type ResourceRef } from "./resource-ref.ts";
import { STATUS_KINDS, statusCommand } from "./status-command.ts";

export const usage = `usage: kubectl nats-operator <command> [flags]

  status natscluster/<name> [-n namespace] [-o json]
      a NatsCluster's servers (version, ready, config revision), the running version, the rollout
      (updated, current, pending; the gate and since when), what is pending and why (Progressing),
      removals, and its conditions
  status natsstream/<name> [-n namespace] [-o json]
      a stream's leader and replicas (current, lag) and its Ready/Synced conditions
  status natsaccount/<name> [-n namespace] [-o json]
      how many servers hold the account's current JWT (n/m) and its conditions
  preview natscluster/<name> [-n namespace] [-o json]
  preview -f <natscluster.yaml> [-n namespace] [-o json]
      what a change to a NatsCluster would do (reload or restart, which servers in which order, what
      would hold it), decided on the live cluster without acting; the servers' monitoring ports are
      read through the API server's pods proxy
  creds natsuser/<name> [-n namespace] [--context-name NAME] [--server URL] [--creds-file PATH] [--print]
      the user's creds Secret as a nats CLI context: the context in ~/.config/nats/context/NAME.json
      and the creds file (mode 0600) in ~/.config/nats/creds/nats-operator/NAME.creds, or --print them;
      the URL defaults to the client endpoint of the NatsCluster in the user's or account's namespace

  global flags: --kubeconfig PATH (default: KUBECONFIG, then ~/.kube/config), -n/--namespace
  (default: the kubeconfig context's namespace, else "default")`;

/** What `preview` is given: the NatsCluster by name or a manifest, read through the API server. */
export interface PreviewRequest {
  file?: string;
  namespace: string;
  name?: string;
  json: boolean;
}

export interface PluginIo {
  out(text: string): void;
  err(text: string): void;
  /** `preview`, wired by bin/ (the rollout's decision lives in functions/step-rollout); returns the exit code. */
  preview(request: PreviewRequest): Promise<number>;
}

/** The namespace the kubeconfig's current context names, if any. */
async function contextNamespace(kubeconfig: string | undefined): Promise<string | undefined> {
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  if (kubeconfig === undefined) kc.loadFromDefault();
  else kc.loadFromFile(kubeconfig);
  return kc.getContextObject(kc.getCurrentContext())?.namespace || undefined;
}

function refOf(text: string | undefined, allowed: readonly string[]): ResourceRef {
  const ref = text === undefined ? undefined : parseResourceRef(text);
  if (!ref || !allowed.includes(ref.kind.kind))
    throw new UsageError(
      `expected ${allowed.map((k) => `${k.toLowerCase()}/<name>`).join(" or ")}, got "${text ?? ""}"`,
    );
  return ref;
}

class UsageError extends Error {}

/** Runs one command; returns the exit code (2 for a usage error, 1 for a failure). */
export async function runPlugin(argv: readonly string[], io: PluginIo): Promise<number> {
  try {
    const { positionals, values } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        help: { type: "boolean", short: "h" },
        namespace: { type: "string", short: "n" },
        output: { type: "string", short: "o" },
        file: { type: "string", short: "f" },
        kubeconfig: { type: "string" },
        "context-name": { type: "string" },
        server: { type: "string" },
        "creds-file": { type: "string" },
        print: { type: "boolean" },
      },
    });
    const [command, target, ...extra] = positionals;
    if (values.help || command === undefined) {
      (values.help ? io.out : io.err)(`${usage}\n`);
      return values.help ? 0 : 2;
    }
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
    if (values.output !== undefined && values.output !== "json")
      throw new UsageError(`-o ${values.output}: only -o json is supported`);
    const json = values.output === "json";
    const namespace = values.namespace ?? (await contextNamespace(values.kubeconfig)) ?? "default";
    switch (command) {
      case "status": {
        const ref = refOf(target, STATUS_KINDS);
        const kube = createKube(await createTransport(values.kubeconfig));
        await statusCommand(kube, namespace, ref, json, io.out);
        return 0;
      }
      case "preview": {
        if (values.kubeconfig !== undefined) process.env.KUBECONFIG = values.kubeconfig;
        const name =
          target === undefined ? undefined : target.includes("/") ? refOf(target, ["NatsCluster"]).name : target;
        return io.preview({
          ...(values.file ? { file: values.file } : {}),
          namespace,
          ...(name ? { name } : {}),
          json,
        });
      }
      case "creds": {
        const ref = refOf(target, ["NatsUser"]);
        const kube = createKube(await createTransport(values.kubeconfig));
        await credsCommand(
          kube,
          {
            namespace,
            user: ref.name,
            ...(values["context-name"] ? { contextName: values["context-name"] } : {}),
            ...(values.server ? { server: values.server } : {}),
            ...(values["creds-file"] ? { credsPath: values["creds-file"] } : {}),
            print: values.print === true,
          },
          io.out,
        );
        return 0;
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof UsageError || (error as { code?: unknown }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      io.err(`kubectl nats-operator: ${message}\n${usage}\n`);
      return 2;
    }
    io.err(`kubectl nats-operator: ${message}\n`);
    return 1;
  }
}
