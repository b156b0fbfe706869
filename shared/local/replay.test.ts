import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clusterEvent } from "../../test/support/events.ts";
import { readEventLog } from "./replay.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "event-log-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function logOf(...lines: string[]): Promise<string> {
  const file = join(dir, "events.jsonl");
  await writeFile(file, `${lines.join("\n")}\n`);
  return file;
}

const good = JSON.stringify(clusterEvent().toJSON());

describe("readEventLog", () => {
  it("reads one CloudEvent per line, skipping blank lines and # comments", async () => {
    const file = await logOf("# recorded by render-cluster", good, "", good);
    expect((await readEventLog(file)).map((e) => [e.id, e["name"]])).toEqual([
      ["evt-1", "demo"],
      ["evt-1", "demo"],
    ]);
  });

  it("refuses a line that is not JSON, naming the file and the line", async () => {
    const file = await logOf(good, '{"id": "cut off by a kill');
    await expect(readEventLog(file)).rejects.toThrow(new RegExp(`^${file}:2: not a CloudEvent: `));
  });

  it("refuses JSON that is not an object, naming the line", async () => {
    const file = await logOf(good, "# a comment", "42");
    await expect(readEventLog(file)).rejects.toThrow(`${file}:3: not a CloudEvent: not a JSON object`);
  });

  it("says which attribute an object lacks to be a CloudEvent, on one line", async () => {
    const file = await logOf(JSON.stringify({ specversion: "1.0", id: "a", source: "s" }));
    await expect(readEventLog(file)).rejects.toThrow(`${file}:1: not a CloudEvent: must have required property 'type'`);
  });
});
