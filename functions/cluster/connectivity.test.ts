import { describe, expect, it } from "@jest/globals";
import { createOperator } from "../../test/support/nats-auth.ts";
import { demoCluster } from "../../test/fixtures/cluster/clusters.ts";
import { judgeGateways, judgeLeafRemotes, type ServerConnectivity } from "./connectivity.ts";
import type { ReadyLeafRemote } from "./plan/leafnodes.ts";

const north = demoCluster({
  gateway: {
    discovery: "Explicit",
    remotes: [
      { name: "demo", url: "tls://demo.example:7222" },
      { name: "south", url: "tls://south.example:7222" },
    ],
  },
});

/** A GATEWAYZ answer: an outbound connection to each of `to`, and `inbound` connections from each. */
const gatewayz = (server: string, to: string[], inbound: Record<string, number> = {}): ServerConnectivity => ({
  server,
  gatewayz: {
    outbound_gateways: Object.fromEntries(to.map((name) => [name, { connection: { name } }])),
    inbound_gateways: Object.fromEntries(
      Object.entries(inbound).map(([name, n]) => [name, Array.from({ length: n }, () => ({ connection: {} }))]),
    ),
  },
});

describe("GatewaysConnected (C50)", () => {
  it("is True when every answering server dials every other member", () => {
    const answers = ["demo-0", "demo-1", "demo-2"].map((s) => gatewayz(s, ["south"], { south: 1 }));
    expect(judgeGateways(north, answers)).toEqual({
      members: [{ name: "south", connected: true, inbound: 3, outbound: 3 }],
      condition: {
        type: "GatewaysConnected",
        status: "True",
        reason: "AllMembersReachable",
        message: "1 of 1 remote members connected",
      },
    });
  });

  it("is False, naming the member, while a planned server has no connection to it or does not answer", () => {
    const answers = [gatewayz("demo-0", ["south"]), gatewayz("demo-1", [])];
    const judged = judgeGateways(north, answers);
    expect(judged.members).toEqual([{ name: "south", connected: false, inbound: 0, outbound: 1 }]);
    expect(judged.condition).toMatchObject({
      status: "False",
      reason: "MembersUnreachable",
      message: "0 of 1 remote members connected; not connected: south (1 of 3 servers)",
    });
  });

  it("is False while every server dials a member but none of its servers dials in: its messages cannot arrive", () => {
    const answers = ["demo-0", "demo-1", "demo-2"].map((s) => gatewayz(s, ["south"]));
    const judged = judgeGateways(north, answers);
    expect(judged.members).toEqual([{ name: "south", connected: false, inbound: 0, outbound: 3 }]);
    expect(judged.condition).toMatchObject({
      status: "False",
      reason: "MembersUnreachable",
      message: "0 of 1 remote members connected; not connected: south (none of its servers dials in)",
    });
  });

  it("counts members learnt from the servers' connections, as Gossip discovers them", () => {
    const answers = [gatewayz("demo-0", ["south", "west"])];
    expect(judgeGateways(north, answers).members.map((m) => m.name)).toEqual(["south", "west"]);
  });

  it("is Unknown when no server answered", () => {
    expect(judgeGateways(north, []).condition).toMatchObject({ status: "Unknown", reason: "ObservationFailed" });
  });
});

const remote = (name: string, account?: string): ReadyLeafRemote => ({
  connectionNamespace: "edge",
  connectionName: name,
  urls: ["nats-leaf://hub.example:7422"],
  ...(account ? { account } : {}),
});
const leafz = (server: string, accounts: string[]): ServerConnectivity => ({
  server,
  leafz: { leafs: accounts.map((account) => ({ account, is_spoke: true })) },
});

describe("LeafnodesConnected (C57)", () => {
  it("is True when every answering server holds the connection of every remote", () => {
    const answers = ["demo-0", "demo-1", "demo-2"].map((s) => leafz(s, ["$G"]));
    expect(judgeLeafRemotes(3, [remote("hub")], [], answers)).toEqual({
      remotes: [{ connectionNamespace: "edge", connectionName: "hub", connected: 3 }],
      condition: {
        type: "LeafnodesConnected",
        status: "True",
        reason: "AllRemotesConnected",
        message: "3 of 3 servers connected to 1 remote",
      },
    });
  });

  it("names the hub account the remote's creds authenticate into", async () => {
    const operator = await createOperator();
    // A JWT is base64url: make sure one with "-" or "_" in it is read too.
    let account = await operator.signAccount("hub");
    for (let i = 0; i < 20 && !/[-_]/.test(account.userCreds.split("\n")[1] ?? ""); i++)
      account = await operator.signAccount("hub");
    const hub = { ...remote("hub"), creds: account.userCreds };
    expect(judgeLeafRemotes(1, [hub], [], [leafz("demo-0", ["$G"])]).remotes[0]?.account).toBe(account.publicKey);
  });

  it("tells remotes binding the same local account apart by count alone (LEAFZ does not name remotes)", () => {
    const remotes = [remote("a", "ASYS"), remote("b", "ASYS")];
    const judged = judgeLeafRemotes(2, remotes, [], [leafz("demo-0", ["ASYS", "ASYS"]), leafz("demo-1", ["ASYS"])]);
    expect(judged.remotes.map((r) => r.connected)).toEqual([1, 1]);
    expect(judged.condition).toMatchObject({ status: "False", reason: "RemotesDisconnected" });
  });

  it("ignores connections leaf nodes made into this cluster", () => {
    const answers: ServerConnectivity[] = [
      { server: "demo-0", leafz: { leafs: [{ account: "$G", is_spoke: false }] } },
    ];
    expect(judgeLeafRemotes(3, [remote("hub")], [], answers).remotes[0]?.connected).toBe(0);
  });

  it("is False with the refusal's reason while a remote is left out, naming it", () => {
    const judged = judgeLeafRemotes(
      1,
      [remote("hub")],
      [
        {
          connectionNamespace: "edge",
          connectionName: "gone",
          reason: "LeafRemoteNotFound",
          message: "NatsConnection edge/gone does not exist",
        },
      ],
      [leafz("demo-0", ["$G"])],
    );
    expect(judged.condition).toMatchObject({
      status: "False",
      reason: "LeafRemoteNotFound",
      message: "left out: edge/gone: NatsConnection edge/gone does not exist",
    });
  });
});
