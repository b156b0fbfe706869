import { createTransport, type KubeTransport } from "../kube/transport.ts";
import { createLogger } from "../telemetry/logger.ts";
import { startTelemetry } from "../telemetry/sdk.ts";
import { operatorVersion } from "../telemetry/version.ts";
import type { FunctionCatalog } from "./catalog.ts";
import { processDeps } from "./deps.ts";
import { apiServerTokenReviewer, senderCheck, senderCheckSettings } from "./sender-check.ts";
import { startServer } from "./server.ts";
import { onTermination } from "./shutdown.ts";

/**
 * The production entry point: one HTTP server hosting the functions the
 * FUNCTIONS variable names (all when unset), on PORT (8080 by default, as
 * Knative Serving sets it), on every address unless HOST names one. NATS_OPERATOR_EVENT_LOG names a
 * JSON Lines file that records every event received (off by default), for `nats-operator replay`.
 * NATS_OPERATOR_OIDC_AUDIENCE and NATS_OPERATOR_OIDC_SUBJECTS turn on the sender check (Knative
 * Eventing's OIDC; chart value oidc.verifyDeliveries): each POST needs a token for that audience
 * from one of those identities.
 */
export async function serve(catalog: FunctionCatalog, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const log = createLogger();
  const selection = catalog.selectFunctions(env.FUNCTIONS);
  if (!selection.ok) {
    log.fatal(selection.message);
    process.exitCode = 2;
    return;
  }
  const stopTelemetry = await startTelemetry(
    selection.names.length === 1 ? `nats-operator-${selection.names[0]}` : "nats-operator",
  );
  const senders = senderCheckSettings(env);
  if (!senders.ok) {
    log.fatal(senders.message);
    process.exitCode = 2;
    return;
  }
  const functions = await catalog.loadFunctions(selection.names);
  const server = await startServer({
    functions,
    deps: processDeps(log),
    port: Number(env.PORT ?? 8080),
    ...(env.HOST !== undefined && env.HOST !== "" ? { host: env.HOST } : {}),
    ...(env.NATS_OPERATOR_EVENT_LOG ? { eventLog: env.NATS_OPERATOR_EVENT_LOG } : {}),
    ...(senders.settings === undefined
      ? {}
      : { senderCheck: senderCheck({ ...senders.settings, review: apiServerTokenReviewer(lazyTransport()) }) }),
  });
  log.info(
    {
      port: server.port,
      functions: selection.names,
      version: operatorVersion(),
      ...(senders.settings === undefined ? {} : { senderAudience: senders.settings.audience }),
    },
    "serving CloudEvents",
  );
  onTermination(log, async () => {
    await server.close();
    await Promise.all(functions.map((fn) => fn.shutdown?.()));
    await stopTelemetry();
  });
}

/** One API server connection, made on the first review and made again after a failed start. */
function lazyTransport(): () => Promise<KubeTransport> {
  let transport: Promise<KubeTransport> | undefined;
  return () => {
    transport ??= createTransport().catch((error: unknown) => {
      transport = undefined;
      throw error;
    });
    return transport;
  };
}
