import type { Logger } from "../telemetry/logger.ts";

/**
 * On SIGTERM or SIGINT runs `stop` once (stop accepting, finish in-flight
 * work, flush telemetry), then exits. A second signal exits at once.
 */
export function onTermination(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, "shutting down: finishing in-flight events");
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}
