import { readFile } from "node:fs/promises";
import { CloudEvent, HTTP, ValidationError } from "cloudevents";
import { DETAIL_HEADER, OUTCOME_HEADER } from "../runtime/server.ts";

export interface ReplayResult {
  id: string;
  type: string;
  status: number;
  /** How the function handled it (done, skipped, conflict, ...), from the answer's headers. */
  outcome: string | undefined;
  detail: string | undefined;
  body: string;
}

/**
 * Reads a JSON Lines file of CloudEvents in structured JSON form; blank lines and `#` comments are
 * skipped. A line that is not a CloudEvent is refused with its file and line number and why, on one
 * line, before anything is replayed: a partial replay would not be the incident.
 */
export async function readEventLog(path: string): Promise<CloudEvent<unknown>[]> {
  const text = await readFile(path, "utf8");
  return text
    .split("\n")
    .map((line, i) => ({ line: line.trim(), number: i + 1 }))
    .filter(({ line }) => line !== "" && !line.startsWith("#"))
    .map(({ line, number }) => {
      try {
        return parseEvent(line);
      } catch (error) {
        throw new Error(`${path}:${number}: not a CloudEvent: ${reasonOf(error)}`, { cause: error });
      }
    });
}

function parseEvent(line: string): CloudEvent<unknown> {
  const parsed: unknown = JSON.parse(line);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not a JSON object");
  return new CloudEvent<unknown>(parsed as Record<string, unknown>);
}

/** The SDK's validation error says "invalid payload" and lists the reasons apart; this names them. */
function reasonOf(error: unknown): string {
  if (error instanceof ValidationError && Array.isArray(error.errors) && error.errors.length > 0) {
    return error.errors
      .map((e) => (typeof e === "string" ? e : typeof e.message === "string" ? e.message : JSON.stringify(e)))
      .join("; ");
  }
  return error instanceof Error ? error.message : String(error);
}

/** Posts one CloudEvent in binary mode, as the Broker delivers it. */
export async function postEvent(
  url: string,
  ce: CloudEvent<unknown>,
  mode: "binary" | "structured" = "binary",
): Promise<ReplayResult> {
  const message = mode === "binary" ? HTTP.binary(ce) : HTTP.structured(ce);
  const body = typeof message.body === "string" ? message.body : JSON.stringify(message.body);
  const response = await fetch(url, { method: "POST", headers: message.headers as Record<string, string>, body });
  const detail = response.headers.get(DETAIL_HEADER);
  return {
    id: ce.id,
    type: ce.type,
    status: response.status,
    outcome: response.headers.get(OUTCOME_HEADER) ?? undefined,
    detail: detail === null ? undefined : decodeURIComponent(detail),
    body: await response.text(),
  };
}

/** Posts the events one after another, in file order. */
export async function replayEvents(url: string, events: readonly CloudEvent<unknown>[]): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for (const ce of events) results.push(await postEvent(url, ce));
  return results;
}
