import { readFile } from "node:fs/promises";
import { CloudEvent, HTTP } from "cloudevents";
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

/** Reads a JSON Lines file of CloudEvents in structured JSON form; blank lines and `#` comments are skipped. */
export async function readEventLog(path: string): Promise<CloudEvent<unknown>[]> {
  const text = await readFile(path, "utf8");
  return text
    .split("\n")
    .map((line, i) => ({ line: line.trim(), number: i + 1 }))
    .filter(({ line }) => line !== "" && !line.startsWith("#"))
    .map(({ line, number }) => {
      try {
        return new CloudEvent<unknown>(JSON.parse(line) as Record<string, unknown>);
      } catch (error) {
        throw new Error(
          `${path}:${number}: not a CloudEvent: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
    });
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
