import { describe, expect, it } from "@jest/globals";
import { demoCluster } from "../../../test/fixtures/cluster/clusters.ts";
import { deriveLimits } from "./limits.ts";
import { renderServerConfig, renderServerConfigObject } from "./server-config.ts";

const render = (cluster = demoCluster(), extra: { revision?: string; routeTls?: boolean } = {}) =>
  renderServerConfigObject({
    cluster,
    ordinal: 1,
    limits: deriveLimits(cluster.spec),
    routeTls: extra.routeTls ?? true,
    clientTls: false,
    ...(extra.revision ? { revision: extra.revision } : {}),
  });

describe("server config", () => {
  it("writes its keys in the fixed order", () => {
    expect(Object.keys(render(demoCluster({ serverTags: { zone: "a" } }), { revision: "abc" }))).toEqual([
      "server_name",
      "listen",
      "http",
      "pid_file",
      "lame_duck_duration",
      "lame_duck_grace_period",
      "server_tags",
      "server_metadata",
      "cluster",
      "jetstream",
    ]);
  });

  it("names the server after the cluster and its ordinal", () => {
    expect(render()["server_name"]).toBe("demo-1");
  });

  it("routes to every server, itself included, by pod DNS name", () => {
    expect((render()["cluster"] as { routes: string[] }).routes).toEqual([
      "nats-route://demo-0-0.demo-headless.nats-system.svc:6222",
      "nats-route://demo-1-0.demo-headless.nats-system.svc:6222",
      "nats-route://demo-2-0.demo-headless.nats-system.svc:6222",
    ]);
  });

  it("runs a lone JetStream server standalone, with no routes, since it has no peer to elect a meta leader with", () => {
    const one = demoCluster({ replicas: 1 });
    expect(
      renderServerConfigObject({
        cluster: one,
        ordinal: 0,
        limits: deriveLimits(one.spec),
        routeTls: true,
        clientTls: false,
      }),
    ).not.toHaveProperty("cluster");
  });

  it("keeps the routes of a lone server without JetStream", () => {
    const { jetstream: _omitted, ...coreOnly } = demoCluster({ replicas: 1 }).spec;
    const one = { ...demoCluster(), spec: coreOnly };
    expect(
      renderServerConfigObject({
        cluster: one,
        ordinal: 0,
        limits: deriveLimits(one.spec),
        routeTls: true,
        clientTls: false,
      }),
    ).toHaveProperty("cluster");
  });

  it("verifies route peers against the route CA", () => {
    expect((render()["cluster"] as { tls: unknown }).tls).toEqual({
      cert_file: "/etc/nats-routes-tls/tls.crt",
      key_file: "/etc/nats-routes-tls/tls.key",
      ca_file: "/etc/nats-routes-tls/ca.crt",
      verify: true,
    });
  });

  it("leaves route TLS out when it is disabled", () => {
    expect(render(demoCluster(), { routeTls: false })["cluster"]).not.toHaveProperty("tls");
  });

  it("sets a two-minute lame duck with a ten-second grace period", () => {
    expect(render()).toMatchObject({ lame_duck_duration: "2m0s", lame_duck_grace_period: "10s" });
  });

  it("sizes the JetStream stores in bytes", () => {
    expect(render()["jetstream"]).toEqual({
      store_dir: "/data/jetstream",
      max_memory_store: 3 * 1024 ** 3,
      max_file_store: 19 * 1024 ** 3,
    });
  });

  it("leaves sync_interval to nats-server's default (2m) when jetstream.syncInterval is absent", () => {
    expect(render()["jetstream"]).not.toHaveProperty("sync_interval");
  });

  it.each(["always", "10s", "1m30s"])("renders jetstream.syncInterval %s as sync_interval", (syncInterval) => {
    const base = demoCluster();
    const cluster = demoCluster({ jetstream: { ...base.spec.jetstream, syncInterval } });
    expect(render(cluster)["jetstream"]).toEqual({
      store_dir: "/data/jetstream",
      max_memory_store: 3 * 1024 ** 3,
      max_file_store: 19 * 1024 ** 3,
      sync_interval: syncInterval,
    });
  });

  it("reports the revision only in the final render", () => {
    expect(render()).not.toHaveProperty("server_metadata");
    expect(render(demoCluster(), { revision: "abc" })["server_metadata"]).toEqual({ config_revision: "abc" });
  });

  it("renders tags sorted by key as key:value", () => {
    expect(render(demoCluster({ serverTags: { zone: "b", az: "1" } }))["server_tags"]).toEqual(["az:1", "zone:b"]);
  });

  it("is two-space JSON with a trailing newline", () => {
    const cluster = demoCluster();
    const text = renderServerConfig({
      cluster,
      ordinal: 0,
      limits: deriveLimits(cluster.spec),
      routeTls: true,
      clientTls: false,
    });
    expect(text.endsWith("}\n")).toBe(true);
    expect(text).toContain('\n  "server_name": "demo-0",');
  });
});
