// The one rule for credentials a URL carries (`nats://user:pass@host`, `tls://token@host`): they
// never leave the process in text. Every place text leaves it goes through here: status writes
// (shared/kube/status.ts), Events (shared/kube/events.ts), log lines (logger.ts), span statuses,
// the HTTP answers the Broker and the dead-letter sink read (shared/runtime/server.ts) and the
// event log (shared/runtime/event-log.ts). A NatsConnection's URLs may be granted to, and so
// reported in, another namespace than the one whose owner wrote them.

/** What a URL's user information is replaced with: says credentials were there, not what they were. */
export const REDACTED_USERINFO = "***";

// `scheme://userinfo@`: the userinfo runs to the last `@` before the next `/` or whitespace, so a
// password with an unescaped `@` is covered whole and a list joined by commas stops at each `//`.
const withScheme = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/]*@/g;
// `user:pass@host` without a scheme (nats.js takes `host:port` lists): a `:` in the userinfo tells
// it from a mail address; it starts a word (after a space, a comma, a quote or a bracket).
const withoutScheme = /(^|[\s,;"'([{=])[^\s/@,;"'()[\]{}=:]+:[^\s/@,;"'()[\]{}]*@(?=[A-Za-z0-9[])/g;

/** `text` with the user information of every URL in it replaced by `***`. */
export function redactCredentials(text: string): string {
  if (!text.includes("@")) return text;
  return text.replace(withScheme, `$1${REDACTED_USERINFO}@`).replace(withoutScheme, `$1${REDACTED_USERINFO}@`);
}

/** Every string in a JSON value (a status, an object written as text) through `redactCredentials`. */
export function redactStrings<T>(value: T): T {
  if (typeof value === "string") return redactCredentials(value) as T;
  if (Array.isArray(value)) return value.map(redactStrings) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(v)])) as T;
  }
  return value;
}
