#!/usr/bin/env node
/**
 * nats-operator: serve functions over HTTP (the container's command), run
 * them locally against a cluster, or replay recorded CloudEvents.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const usage = `usage:
  nats-operator serve                         serve the functions FUNCTIONS names (all by default) on PORT
  nats-operator run                           run all functions locally against KUBECONFIG's cluster
                                              (with none configured, a local control plane it starts)
                                              NATS_OPERATOR_FAULTS makes event delivery faulty, e.g.
                                              drop=0.1,duplicate=1,reorder=300ms,concurrency=4,seed=7
  nats-operator replay <events.jsonl> [--url URL]
                                              post recorded CloudEvents to URL, or to the functions
                                              started in this process when no URL is given;
                                              exits 1 when a delivery was not answered 2xx
  nats-operator preview -f <natscluster.yaml> [-o json]
  nats-operator preview -n <namespace> <name> [-o json]
                                              what a change to a NatsCluster would do (reload or
                                              restart, which servers in which order, what would
                                              hold it), decided on the live cluster without acting`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: "string" },
      help: { type: "boolean", short: "h" },
      file: { type: "string", short: "f" },
      namespace: { type: "string", short: "n" },
      output: { type: "string", short: "o" },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined) {
    process.stdout.write(`${usage}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }
  switch (command) {
    case "serve": {
      const [{ serve }, catalog] = await Promise.all([
        import("../shared/runtime/serve.ts"),
        import("../functions/catalog.ts"),
      ]);
      await serve(catalog);
      return 0;
    }
    case "run": {
      const [{ runLocally }, { createLogger }, catalog] = await Promise.all([
        import("../shared/local/local-runner.ts"),
        import("../shared/telemetry/logger.ts"),
        import("../functions/catalog.ts"),
      ]);
      return runLocally(catalog, createLogger(), process.env, () => (clusterConfigured() ? 0 : startLocalCluster()));
    }
    case "replay": {
      const file = rest[0];
      if (!file) {
        process.stderr.write(`${usage}\n`);
        return 2;
      }
      const [{ replayCommand }, catalog] = await Promise.all([
        import("../shared/local/replay-command.ts"),
        import("../functions/catalog.ts"),
      ]);
      return replayCommand(catalog, {
        file,
        ...(values.url ? { url: values.url } : {}),
        ...(process.env.FUNCTIONS ? { functions: process.env.FUNCTIONS } : {}),
      });
    }
    case "preview": {
      const { previewCommand } = await import("../functions/step-rollout/preview/preview-command.ts");
      return previewCommand({
        ...(values.file ? { file: values.file } : {}),
        ...(values.namespace ? { namespace: values.namespace } : {}),
        ...(rest[0] ? { name: rest[0] } : {}),
        json: values.output === "json",
      });
    }
    default:
      process.stderr.write(`unknown command "${command}"\n${usage}\n`);
      return 2;
  }
}

/** Whether KUBECONFIG, ~/.kube/config or a service account names a cluster. */
function clusterConfigured(): boolean {
  return (
    Boolean(process.env.KUBECONFIG) ||
    existsSync(join(homedir(), ".kube", "config")) ||
    Boolean(process.env.KUBERNETES_SERVICE_HOST)
  );
}

/**
 * With no cluster configured, `run` starts the local control plane of
 * test/harness (real kube-apiserver, controller-manager and a kubelet running
 * nats-server pods), or reuses the one already running, and points KUBECONFIG
 * at it.
 */
function startLocalCluster(): number {
  process.stderr.write(
    "nats-operator: no cluster configured; starting the local control plane (npm run cluster:down stops it)\n",
  );
  const up = spawnSync(process.execPath, [fileURLToPath(new URL("../test/harness/cli.ts", import.meta.url)), "up"], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  const kubeconfig = /export KUBECONFIG=(\S+)/.exec(up.stdout ?? "")?.[1];
  if (up.status !== 0 || !kubeconfig) {
    process.stderr.write("nats-operator: the local control plane did not start\n");
    return 1;
  }
  process.env.KUBECONFIG = kubeconfig;
  process.stderr.write(`nats-operator: using the local control plane: export KUBECONFIG=${kubeconfig}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`nats-operator: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
