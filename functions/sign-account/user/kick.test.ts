import { describe, expect, it } from "@jest/globals";
import type { NatsConnection } from "@nats-io/transport-node";
import { FINALIZERS } from "../../../shared/api/index.ts";
import { userObject } from "../../../test/fixtures/auth/objects.ts";
import { act } from "../act.ts";
import type { UserDecision } from "../decision.ts";
import { Keyring } from "../keys/keyring.ts";
import type { NatsUser } from "../objects.ts";
import { kickConnections } from "../servers/system-connection.ts";
import { memoryKube } from "../../../test/support/memory-kube.ts";

/** A connection answering each request as a server answers KICK: `{}` when closed, an error otherwise. */
function servers(answers: Record<string, Record<string, unknown>>) {
  const requests: { subject: string; body: string }[] = [];
  const nc = {
    async request(subject: string, body: string) {
      requests.push({ subject, body });
      const answer = answers[subject] ?? { server: { id: "?" } };
      return { json: () => answer };
    },
  } as unknown as NatsConnection;
  return { nc, requests };
}

describe("closing a deleted user's connections", () => {
  it("sends KICK to the server holding each connection, with its connection id", async () => {
    const { nc, requests } = servers({});
    const outcome = await kickConnections(nc, [
      { server: "NA", cid: 7 },
      { server: "NC", cid: 12 },
    ]);
    expect(requests).toEqual([
      { subject: "$SYS.REQ.SERVER.NA.KICK", body: '{"cid":7}' },
      { subject: "$SYS.REQ.SERVER.NC.KICK", body: '{"cid":12}' },
    ]);
    expect(outcome).toEqual({ kicked: 2, failed: [] });
  });

  it("takes a connection already gone as closed, and reports any other refusal per server", async () => {
    const { nc } = servers({
      "$SYS.REQ.SERVER.NA.KICK": { error: { code: 500, description: "no such client or leafnode id" } },
      "$SYS.REQ.SERVER.NB.KICK": { error: { code: 500, description: "server shutting down" } },
    });
    const outcome = await kickConnections(nc, [
      { server: "NA", cid: 1 },
      { server: "NB", cid: 2 },
    ]);
    expect(outcome).toEqual({ kicked: 0, failed: ["NB: server shutting down"] });
  });

  it("kicks after the claim, records UserKicked, and keeps the finalizer and creds until none is left", async () => {
    const user = {
      ...userObject("alice"),
      metadata: {
        ...userObject("alice").metadata,
        deletionTimestamp: "2026-12-03T09:59:00Z",
        finalizers: [FINALIZERS.userRevoke],
      },
    } as NatsUser;
    const kube = memoryKube([user]);
    const events: string[] = [];
    const recorder = {
      record: async (_o: unknown, type: string, reason: string, note: string) =>
        void events.push(`${type} ${reason}: ${note}`),
    };
    const decision: UserDecision = {
      kind: "NatsUser",
      object: user,
      generate: [],
      status: {},
      sign: [],
      events: [],
      kicks: [{ server: "NA", cid: 7 }],
      schedules: [],
      summary: "",
    };
    const { nc } = servers({});
    const acted = await act(kube, recorder, new Keyring(), decision, { kind: "up", nc, rosters: {} });
    expect(acted).toEqual({ kind: "kicked", outcome: { kicked: 1, failed: [] } });
    expect(events).toEqual(["Normal UserKicked: closed 1 connection(s) of NatsUser alice on 1 server(s)"]);
    const after = await kube.get<NatsUser>({
      apiVersion: "auth.nats-operator.io/v1beta1",
      kind: "NatsUser",
      namespace: "auth",
      name: "alice",
    });
    expect(after?.metadata.finalizers).toEqual([FINALIZERS.userRevoke]);
  });
});
