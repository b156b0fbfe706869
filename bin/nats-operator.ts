#!/usr/bin/env node
/**
 * nats-operator: serve functions over HTTP (the container's command), run
 * them locally against a cluster, or replay recorded CloudEvents.
 */
import { parseArgs } from "node:util";

const usage = `usage:
  nats-operator serve                         serve the functions FUNCTIONS names (all by default) on PORT
  nats-operator run                           run all functions locally against KUBECONFIG's cluster
  nats-operator replay <events.jsonl> [--url URL]
                                              post recorded CloudEvents to URL, or to the functions
                                              started in this process when no URL is given`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: { url: { type: "string" }, help: { type: "boolean", short: "h" } } });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined) {
    process.stdout.write(`${usage}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }
  switch (command) {
    case "serve": {
      const { serve } = await import("../shared/runtime/serve.ts");
      await serve();
      return 0;
    }
    case "run": {
      const [{ runLocally }, { createLogger }] = await Promise.all([import("../shared/eventing/local-runner.ts"), import("../shared/telemetry/logger.ts")]);
      return runLocally(createLogger());
    }
    case "replay": {
      const file = rest[0];
      if (!file) {
        process.stderr.write(`${usage}\n`);
        return 2;
      }
      const { replayCommand } = await import("../shared/eventing/replay-command.ts");
      return replayCommand(file, values.url);
    }
    default:
      process.stderr.write(`unknown command "${command}"\n${usage}\n`);
      return 2;
  }
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
