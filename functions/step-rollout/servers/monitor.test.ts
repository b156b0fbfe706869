import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { judgeDeletion } from "../rollout/deletion.ts";
import { evaluateGate } from "../rollout/gate.ts";
import { mergeSnapshot } from "../rollout/snapshot.ts";
import { readServers } from "./monitor.ts";

// Three servers whose /jsz pages as nats-server's do: at most 1024 accounts a page, `total` in each.
const SERVERS = ["demo-0", "demo-1", "demo-2"];
const ACCOUNTS = 1500;
/** The one account with a stream: on the second page. */
const LATE = "ACC1300";
const MAX_PAGE = 1024;

function jszPage(server: string, offset: number, limit: number, behind: boolean) {
  const cluster = (leader: string) => ({
    leader,
    replicas:
      server === leader
        ? SERVERS.filter((s) => s !== server).map((name) => ({ name, current: !(behind && name === "demo-2") }))
        : [],
  });
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => `ACC${String(i).padStart(4, "0")}`).map((name) => ({
    name,
    ...(name === LATE
      ? { stream_detail: [{ name: "ORDERS", cluster: cluster("demo-0"), config: { num_replicas: 3 } }] }
      : {}),
  }));
  return {
    meta_cluster: cluster("demo-0"),
    total: ACCOUNTS,
    account_details: accounts.slice(offset, offset + Math.min(limit || MAX_PAGE, MAX_PAGE)),
  };
}

let server: Server;
let base: string;
/** What the fixture answers: whether demo-2 is behind on ORDERS, and a server whose second page fails. */
const fixture: { behind: boolean; failSecondPage?: string } = { behind: false };

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const [, name, path] = url.pathname.split("/");
    const offset = Number(url.searchParams.get("offset") ?? 0);
    const limit = Number(url.searchParams.get("limit") ?? 0);
    if (name === fixture.failSecondPage && path === "jsz" && offset > 0) {
      res.writeHead(503).end();
      return;
    }
    const body =
      path === "varz" ? { server_name: name, version: "2.15.2" } : jszPage(name ?? "", offset, limit, fixture.behind);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const read = () => readServers("demo", "default", SERVERS, true, (_c, _n, s) => `${base}/${s}`);

describe("readServers pages through /jsz", () => {
  it("gathers every account of every page", async () => {
    fixture.behind = false;
    const reports = await read();
    for (const report of reports) {
      expect(report.failure).toBeUndefined();
      expect(report.jsz?.account_details).toHaveLength(ACCOUNTS);
      expect(report.jsz?.meta_cluster?.leader).toBe("demo-0");
    }
  });

  it("lets the deletion guard see a stream of an account on the second page", async () => {
    fixture.behind = false;
    const snapshot = mergeSnapshot(SERVERS, await read(), "clustered");
    const verdict = judgeDeletion(snapshot, false);
    expect(verdict.release).toBe(false);
    expect(verdict.condition).toMatchObject({ reason: "JetStreamDataRemains" });
    expect(verdict.condition.message).toContain(`${LATE} ORDERS`);
  });

  it("lets the rollout gate see a copy behind in an account on the second page", async () => {
    const servers = SERVERS.map((name) => ({ name, planned: true, exists: true, onTarget: true, podReady: true }));
    fixture.behind = false;
    expect(evaluateGate(servers, mergeSnapshot(SERVERS, await read(), "clustered"), true, "r1")).toMatchObject({
      waitingFor: "TargetRevision",
    });
    fixture.behind = true;
    const gate = evaluateGate(servers, mergeSnapshot(SERVERS, await read(), "clustered"), true, "r1");
    expect(gate).toMatchObject({ waitingFor: "Settled" });
    expect(gate?.detail).toContain("demo-2");
  });

  it("counts a server whose later page fails as without a JetStream report", async () => {
    fixture.behind = false;
    fixture.failSecondPage = "demo-1";
    try {
      const reports = await read();
      const report = reports.find((r) => r.server === "demo-1");
      expect(report?.jsz).toBeUndefined();
      expect(report?.failure).toBe("HTTP 503");
      expect(mergeSnapshot(SERVERS, reports, "clustered")?.silent).toEqual(["demo-1"]);
    } finally {
      delete fixture.failSecondPage;
    }
  });
});
