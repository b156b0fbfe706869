import { describe, expect, it } from "@jest/globals";
import type { CloudEvent } from "cloudevents";
import { scriptedTransport } from "../../test/support/fake-transport.ts";
import { createLogger } from "../telemetry/logger.ts";
import { parseSchedule } from "../runtime/cron.ts";
import { loadResyncSchedules } from "./manifests.ts";
import { secondsSince, startPingSources } from "./ping-source.ts";

describe("the local PingSource adapter", () => {
  it("fires a PingSource as Knative would: its data, its source path and its target extension", async () => {
    const pingSource = {
      metadata: { name: "rollout-demo", namespace: "team-a" },
      spec: {
        schedule: "* * * * * *",
        contentType: "application/json",
        data: '{"cluster":"demo"}',
        ceOverrides: { extensions: { target: "step-rollout" } },
      },
    };
    const transport = scriptedTransport({ "GET /apis/sources.knative.dev/v1/pingsources": [{ items: [pingSource] }] });
    const abort = new AbortController();
    const fired: CloudEvent<unknown>[] = [];
    const running = startPingSources(
      transport,
      (ce) => {
        fired.push(ce);
        abort.abort();
      },
      createLogger({ level: "silent" }),
      abort.signal,
    );
    await running;
    expect(fired[0]).toMatchObject({
      type: "dev.knative.sources.ping",
      source: "/apis/v1/namespaces/team-a/pingsources/rollout-demo",
      target: "step-rollout",
      data: '{"cluster":"demo"}',
    });
  });

  it("fires the resync ticks of knative/resync.yaml, which no one applies to a local cluster", async () => {
    const resync = await loadResyncSchedules();
    expect(resync.map((p) => p.metadata.name)).toEqual([
      "render-cluster-resync",
      "step-rollout-resync",
      "sign-account-resync",
      "sync-stream-resync",
      "balance-resync",
    ]);
    const transport = scriptedTransport({ "GET /apis/sources.knative.dev/v1/pingsources": [{ items: [] }] });
    const abort = new AbortController();
    const fired: CloudEvent<unknown>[] = [];
    const everySecond = resync.map((p) => ({ ...p, spec: { ...p.spec, schedule: "* * * * * *" } }));
    await startPingSources(
      transport,
      (ce) => {
        fired.push(ce);
        if (fired.length === everySecond.length) abort.abort();
      },
      createLogger({ level: "silent" }),
      abort.signal,
      everySecond,
    );
    expect(fired.find((ce) => ce["target"] === "sync-stream")).toMatchObject({
      source: "/apis/v1/namespaces/nats-operator/pingsources/sync-stream-resync",
      data: '{"resync":true}',
    });
  });

  it("fires a schedule whose second passed while the PingSources were being listed slowly", async () => {
    const second = (new Date().getUTCSeconds() + 1) % 60;
    const pingSource = {
      metadata: { name: "deletions", namespace: "auth" },
      spec: { schedule: `${second} * * * * *`, ceOverrides: { extensions: { target: "sign-account" } } },
    };
    const slowList = {
      ...scriptedTransport(),
      request: async () => {
        await new Promise((r) => setTimeout(r, 1_500));
        return { items: [pingSource] };
      },
    };
    const abort = new AbortController();
    const stopAt = setTimeout(() => abort.abort(), 5_000);
    const fired: CloudEvent<unknown>[] = [];
    await startPingSources(
      slowList,
      (ce) => {
        fired.push(ce);
        abort.abort();
      },
      createLogger({ level: "silent" }),
      abort.signal,
    );
    clearTimeout(stopAt);
    expect(fired.map((ce) => ce.source)).toEqual(["/apis/v1/namespaces/auth/pingsources/deletions"]);
  }, 10_000);

  it("checks the one second since the last check on a wake-up on time", () => {
    const at = Date.parse("2026-12-05T07:00:00.000Z");
    expect(secondsSince(at - 1000, at + 5).map((d) => d.toISOString())).toEqual(["2026-12-05T07:00:00.000Z"]);
  });

  it("checks every second a late wake-up slept through, so a once-a-minute schedule fires late rather than never", () => {
    const before = Date.parse("2026-12-05T06:59:59.000Z");
    const late = Date.parse("2026-12-05T07:00:01.400Z");
    const seconds = secondsSince(before, late);
    expect(seconds.map((d) => d.toISOString())).toEqual(["2026-12-05T07:00:00.000Z", "2026-12-05T07:00:01.000Z"]);
    expect(seconds.some(parseScheduleOrThrow("* * * * *"))).toBe(true);
  });

  it("looks back at most a minute after a long stall", () => {
    const at = Date.parse("2026-12-05T07:10:00.000Z");
    const seconds = secondsSince(at - 3_600_000, at);
    expect(seconds).toHaveLength(60);
    expect(seconds[0]?.toISOString()).toBe("2026-12-05T07:09:01.000Z");
  });

  it("checks no second twice", () => {
    const at = Date.parse("2026-12-05T07:00:00.000Z");
    expect(secondsSince(at, at + 900)).toEqual([]);
  });
});

function parseScheduleOrThrow(text: string): (at: Date) => boolean {
  const schedule = parseSchedule(text);
  if (!schedule.ok) throw new Error(schedule.message);
  return schedule.matches;
}
