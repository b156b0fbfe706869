import { describe, expect, it } from "@jest/globals";
import { NO_RELOAD, changedPaths, restartReason } from "./restart-reason.ts";

const config = (extra: Record<string, unknown> = {}) => JSON.stringify({ server_name: "demo-0", cluster: { routes: ["a"] }, jetstream: { max_memory_store: 100 }, ...extra });

describe("restart reason", () => {
  it("names a version move", () => {
    expect(restartReason({ specDigest: "a", runningVersion: "2.15.0" }, { specDigest: "b", version: "2.15.1", config: config() })).toBe("version 2.15.0 -> 2.15.1 is restart-only");
  });

  it("names a StatefulSet spec change", () => {
    expect(restartReason({ specDigest: "a", runningVersion: "2.15.0" }, { specDigest: "b", version: "2.15.0", config: config() })).toBe("the StatefulSet spec is restart-only");
  });

  it("names the config paths a reload cannot apply", () => {
    const running = { specDigest: "a", runningConfig: config() };
    expect(restartReason(running, { specDigest: "a", version: "2.15.0", config: config({ lame_duck_duration: "1m" }) })).toBe("lame_duck_duration is restart-only");
  });

  it("says a reloadable change restarts for want of system credentials", () => {
    const running = { specDigest: "a", runningConfig: config() };
    const planned = { specDigest: "a", version: "2.15.0", config: config({ cluster: { routes: ["a", "b"] }, jetstream: { max_memory_store: 200 } }) };
    expect(restartReason(running, planned)).toBe(NO_RELOAD);
  });

  it("treats a lowered store limit as restart-only", () => {
    const running = { specDigest: "a", runningConfig: config() };
    expect(restartReason(running, { specDigest: "a", version: "2.15.0", config: config({ jetstream: { max_memory_store: 50 } }) })).toBe("jetstream.max_memory_store is restart-only");
  });

  it("lists differing paths, descending only into objects both sides hold", () => {
    expect(changedPaths({ a: { b: 1, c: 2 }, d: 1 }, { a: { b: 1, c: 3 }, e: { f: 1 } })).toEqual(["a.c", "d", "e"]);
  });
});
