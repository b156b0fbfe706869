import { pino, type Logger } from "pino";

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

/** The process-wide JSON logger; level from LOG_LEVEL (default info). */
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
    options.destination ?? process.stdout,
  );
}
