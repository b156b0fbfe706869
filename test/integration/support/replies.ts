// Requests every server answers: $SYS pings, claims lookups and updates. A loaded server answers
// seconds late, so a caller that knows how many servers there are waits for that many replies
// instead of a fixed window.
import { createInbox, type NatsConnection } from "@nats-io/transport-node";

export interface ReplyOptions {
  body?: string;
  /** Returns as soon as this many have replied. */
  want?: number;
  /** How long to listen: 2 s without `want` (every reply within it), 30 s with it. */
  ms?: number;
  /** The inbox prefix a user whose permissions name its inbox must reply through. */
  inboxPrefix?: string;
}

/** Every reply to one request, raw and in arrival order. */
export async function replies(nc: NatsConnection, subject: string, options: ReplyOptions = {}): Promise<string[]> {
  const { body = "", want, inboxPrefix } = options;
  const ms = options.ms ?? (want === undefined ? 2_000 : 30_000);
  const inbox = createInbox(inboxPrefix);
  const sub = nc.subscribe(inbox, want === undefined ? {} : { max: want });
  const timer = setTimeout(() => sub.unsubscribe(), ms);
  nc.publish(subject, body, { reply: inbox });
  const answers: string[] = [];
  for await (const m of sub) answers.push(m.string());
  clearTimeout(timer);
  return answers;
}

/** Every reply, parsed as JSON. */
export const jsonReplies = async <T>(nc: NatsConnection, subject: string, options: ReplyOptions = {}): Promise<T[]> =>
  (await replies(nc, subject, options)).map((a) => JSON.parse(a) as T);
