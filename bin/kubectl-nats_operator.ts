#!/usr/bin/env node
/**
 * kubectl-nats_operator: the kubectl plugin (`kubectl nats-operator status|preview|creds`), by krew's
 * naming an executable of this name on PATH. Also built into a single executable
 * (scripts/build-plugin.ts) that needs no Node installed.
 */
import { runPlugin } from "../shared/kubectl-plugin/plugin.ts";

runPlugin(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  // The servers' in-cluster names do not resolve out here: their monitoring is read through the
  // API server's pods proxy.
  preview: async (request) =>
    (await import("../functions/step-rollout/preview/preview-command.ts")).previewCommand({
      ...request,
      viaApiServer: true,
    }),
}).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`kubectl nats-operator: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
