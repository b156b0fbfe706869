// Telemetry, as functions use it: the logger they are handed.
export { createLogger, type Logger } from "./logger.ts";
