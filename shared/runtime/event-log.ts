// NATS_OPERATOR_EVENT_LOG: every CloudEvent a function receives, one JSON line each, in the
// structured form `nats-operator replay` reads. The HTTP server and the in-process delivery of the
// local runner both record through here, so a file from either replays the same way.
import { appendFile } from "node:fs/promises";
import type { CloudEvent } from "cloudevents";
import type { Logger } from "../telemetry/logger.ts";
import { redactCredentials } from "../telemetry/redact.ts";

/**
 * Appends the event as one line; a log that cannot be written is said once per failure, never
 * fatal. A NatsConnection's event carries its URLs: their credentials are redacted (a replay reads
 * the object afresh, so it loses nothing).
 */
export async function recordEvent(file: string, event: CloudEvent<unknown>, log: Logger): Promise<void> {
  try {
    await appendFile(file, `${redactCredentials(JSON.stringify(event.toJSON()))}\n`);
  } catch (error) {
    log.warn({ err: error, file }, "could not record the event");
  }
}
