import { describe, expect, it } from "@jest/globals";
import type { NatsConnection } from "@nats-io/transport-node";
import { readAccount } from "./read-account.ts";

const peer = (name: string, current = true) => ({ name, current, offline: false, lag: current ? 0 : 12 });

/** A connection to js-1 of NATS cluster js answering the account's JetStream API from `answers`, by subject and offset. */
function fakeConnection(answers: (subject: string, offset: number) => unknown): NatsConnection & { asked: string[] } {
  const asked: string[] = [];
  return {
    info: { server_name: "js-1", cluster: "js" },
    asked,
    async request(subject: string, body: string) {
      const offset = body ? ((JSON.parse(body) as { offset?: number }).offset ?? 0) : 0;
      asked.push(`${subject}@${offset}`);
      return { json: () => answers(subject, offset) };
    },
  } as unknown as NatsConnection & { asked: string[] };
}

const streamItem = (name: string, leader: string, cluster = "js") => ({
  config: { name },
  cluster: {
    name: cluster,
    leader,
    replicas: ["js-0", "js-1", "js-2"].filter((s) => s !== leader).map((s) => peer(s)),
  },
});

describe("reading an account through its own JetStream API", () => {
  it("pages STREAM.LIST and CONSUMER.LIST, keeping the groups placed in the connection's NATS cluster", async () => {
    const nc = fakeConnection((subject, offset) => {
      if (subject === "$SYS.REQ.USER.INFO") return { data: { account: "APP" } };
      if (subject === "$JS.API.STREAM.LIST")
        return offset === 0
          ? { total: 3, offset: 0, limit: 2, streams: [streamItem("B", "js-0"), streamItem("A", "js-2")] }
          : { total: 3, offset: 2, limit: 2, streams: [streamItem("AWAY", "east-0", "east")] };
      if (subject === "$JS.API.CONSUMER.LIST.A")
        return {
          total: 1,
          consumers: [{ name: "c1", cluster: { name: "js", leader: "js-1", replicas: [peer("js-0", false)] } }],
        };
      return { total: 0, consumers: [] };
    });
    const read = await readAccount(nc);
    expect(read).toMatchObject({ ok: true, account: "APP", cluster: "js", roster: ["js-0", "js-1", "js-2"] });
    if (!read.ok) return;
    expect(
      read.groups.map((g) => `${g.kind} ${g.stream}${g.consumer ? `/${g.consumer}` : ""} led by ${g.leader ?? "-"}`),
    ).toEqual(["stream A led by js-2", "consumer A/c1 led by js-1", "stream B led by js-0"]);
    expect(read.groups[1]?.members).toEqual([
      { name: "js-1", current: true, offline: false, lag: 0 },
      { name: "js-0", current: false, offline: false, lag: 12 },
    ]);
    expect(nc.asked).toEqual([
      "$SYS.REQ.USER.INFO@0",
      "$JS.API.STREAM.LIST@0",
      "$JS.API.STREAM.LIST@2",
      "$JS.API.CONSUMER.LIST.A@0",
      "$JS.API.CONSUMER.LIST.B@0",
    ]);
  });

  it("says PassFailed when the JetStream API refuses", async () => {
    const nc = fakeConnection((subject) =>
      subject === "$SYS.REQ.USER.INFO"
        ? { data: { account: "APP" } }
        : { error: { code: 503, err_code: 10008, description: "JetStream system temporarily unavailable" } },
    );
    expect(await readAccount(nc)).toEqual({
      ok: false,
      reason: "PassFailed",
      message:
        "the account's streams could not be read: the JetStream API refused: JetStream system temporarily unavailable",
    });
  });
});
