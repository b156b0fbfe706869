import { pino, type Logger } from "pino";
import { redactCredentials } from "./redact.ts";

export type { Logger };

/**
 * Paths whose values must never reach a log line. Secret material can sit in
 * event payloads (a Secret in Resource mode, by mistake) or in objects we log.
 */
const redactPaths = [
  "*.seed",
  "*.creds",
  "*.jwt",
  "*.token",
  "*.password",
  "data",
  "stringData",
  "*.data",
  "*.stringData",
  "object.data",
  "object.stringData",
];

/**
 * The process-wide JSON logger; level from LOG_LEVEL (default info). Each line is written with the
 * credentials of any URL in it redacted (`redactCredentials`), whichever field or message holds it:
 * an error's text can quote a server URL as well as our own messages.
 */
export function createLogger(options: { level?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? "info";
  return pino(
    {
      level,
      base: { service: "nats-operator" },
      redact: { paths: redactPaths, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    redacting(options.destination ?? process.stdout),
  );
}

function redacting(destination: NodeJS.WritableStream): { write(line: string): void } {
  return { write: (line) => void destination.write(redactCredentials(line)) };
}
