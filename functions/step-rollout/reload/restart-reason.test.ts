import { describe, expect, it } from "@jest/globals";
import { NO_RELOAD, changedPaths, restartReason } from "./restart-reason.ts";

const config = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ server_name: "demo-0", cluster: { routes: ["a"] }, jetstream: { max_memory_store: 100 }, ...extra });

describe("restart reason", () => {
  it("names a version move", () => {
    expect(
      restartReason(
        { specDigest: "a", runningVersion: "2.15.0" },
        { specDigest: "b", version: "2.15.1", config: config() },
      ),
    ).toBe("version 2.15.0 -> 2.15.1 is restart-only");
  });

  it("names a StatefulSet spec change", () => {
    expect(
      restartReason(
        { specDigest: "a", runningVersion: "2.15.0" },
        { specDigest: "b", version: "2.15.0", config: config() },
      ),
    ).toBe("the StatefulSet spec is restart-only");
  });

  it("names the config paths a reload cannot apply", () => {
    const running = { specDigest: "a", runningConfig: config() };
    expect(
      restartReason(running, { specDigest: "a", version: "2.15.0", config: config({ lame_duck_duration: "1m" }) }),
    ).toBe("lame_duck_duration is restart-only");
  });

  it("says a reloadable change restarts for want of system credentials", () => {
    const running = { specDigest: "a", runningConfig: config() };
    const planned = {
      specDigest: "a",
      version: "2.15.0",
      config: config({ cluster: { routes: ["a", "b"] }, jetstream: { max_memory_store: 200 } }),
    };
    expect(restartReason(running, planned)).toBe(NO_RELOAD);
  });

  it("treats a lowered store limit as restart-only", () => {
    const running = { specDigest: "a", runningConfig: config() };
    expect(
      restartReason(running, {
        specDigest: "a",
        version: "2.15.0",
        config: config({ jetstream: { max_memory_store: 50 } }),
      }),
    ).toBe("jetstream.max_memory_store is restart-only");
  });

  it("treats a changed sync_interval as restart-only, since nats-server refuses to reload it", () => {
    const running = { specDigest: "a", runningConfig: config() };
    const planned = (jetstream: Record<string, unknown>) => ({
      specDigest: "a",
      version: "2.15.0",
      config: config({ jetstream: { max_memory_store: 100, ...jetstream } }),
    });
    expect(restartReason(running, planned({ sync_interval: "always" }))).toBe(
      "jetstream.sync_interval is restart-only",
    );
    expect(restartReason(running, planned({ sync_interval: "10s" }))).toBe("jetstream.sync_interval is restart-only");
    const always = {
      specDigest: "a",
      runningConfig: config({ jetstream: { max_memory_store: 100, sync_interval: "always" } }),
    };
    expect(restartReason(always, planned({}))).toBe("jetstream.sync_interval is restart-only");
  });

  it("reloads nats-server's default sync_interval written out, which changes nothing it runs", () => {
    const running = { specDigest: "a", runningConfig: config() };
    const planned = {
      specDigest: "a",
      version: "2.15.0",
      config: config({ jetstream: { max_memory_store: 100, sync_interval: "2m" } }),
    };
    expect(restartReason(running, planned)).toBe(NO_RELOAD);
  });

  it("reloads leaf remotes added or removed, and restarts any other leafnodes change", () => {
    const running = {
      specDigest: "a",
      runningConfig: config({ leafnodes: { port: 7422, remotes: [{ url: "nats://a" }] } }),
    };
    const planned = (leafnodes: unknown) => ({ specDigest: "a", version: "2.15.0", config: config({ leafnodes }) });
    expect(restartReason(running, planned({ port: 7422, remotes: [{ url: "nats://a" }, { url: "nats://b" }] }))).toBe(
      NO_RELOAD,
    );
    expect(restartReason(running, planned({ port: 7422 }))).toBe(NO_RELOAD);
    expect(restartReason(running, planned({ port: 7423, remotes: [{ url: "nats://a" }] }))).toBe(
      "leafnodes.port is restart-only",
    );
  });

  it("reloads only the system account's own preload, re-signed", () => {
    const auth = (system: string, preload: Record<string, string>) =>
      config({ system_account: system, resolver_preload: preload });
    const running = { specDigest: "a", runningConfig: auth("ASYS", { ASYS: "jwt1", AAPP: "app1" }) };
    const planned = (system: string, preload: Record<string, string>) => ({
      specDigest: "a",
      version: "2.15.0",
      config: auth(system, preload),
    });
    expect(restartReason(running, planned("ASYS", { ASYS: "jwt2", AAPP: "app1" }))).toBe(NO_RELOAD);
    expect(restartReason(running, planned("ASYS", { ASYS: "jwt1", AAPP: "app2" }))).toBe(
      "resolver_preload.AAPP is restart-only",
    );
    expect(restartReason(running, planned("ANEW", { ANEW: "jwt2", AAPP: "app1" }))).toBe(
      "resolver_preload.ANEW, resolver_preload.ASYS, system_account are restart-only",
    );
  });

  it("lists differing paths, descending only into objects both sides hold", () => {
    expect(changedPaths({ a: { b: 1, c: 2 }, d: 1 }, { a: { b: 1, c: 3 }, e: { f: 1 } })).toEqual(["a.c", "d", "e"]);
  });
});
