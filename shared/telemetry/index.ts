// Telemetry, as functions use it: the logger they are handed.
export { createLogger, type Logger } from "./logger.ts";
// The one redaction of credentials in URLs, for text a function builds from them.
export { redactCredentials } from "./redact.ts";
