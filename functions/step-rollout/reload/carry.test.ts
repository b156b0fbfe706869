import { describe, expect, it } from "@jest/globals";
import type { NatsConnection } from "@nats-io/transport-node";
import { type Kube, KubeRequestError, type ObjectKey } from "../../../shared/kube/index.ts";
import type { PlannedServer } from "../../cluster/index.ts";
import { carryReload, type ReloadingServer } from "./carry.ts";

const NOW = new Date("2026-12-02T10:00:00.123Z");
const ID = "NDSERVER0";

const server: ReloadingServer = {
  planned: { name: "demo-0", config: '{"server_name":"demo-0"}' } as PlannedServer,
  configMap: {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "demo-0-config", namespace: "ns", resourceVersion: "7" },
  },
  statefulSet: {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "demo-0", namespace: "ns", resourceVersion: "9" },
    spec: { template: { spec: {} } },
  },
  serverId: ID,
};

/** Records merge patches; answers 409 for the kinds named in `conflicts`. */
function recordingKube(conflicts: string[] = []) {
  const patches: { kind: string; name: string; patch: unknown }[] = [];
  const kube = {
    async patch(key: ObjectKey, patch: unknown) {
      if (conflicts.includes(key.kind)) throw new KubeRequestError(409, "Conflict", "the object has been modified");
      patches.push({ kind: key.kind, name: key.name, patch });
      return {};
    },
  } as unknown as Kube;
  return { kube, patches };
}

type Answer = Record<string, unknown> | Error;

/** A connection answering each request with the next scripted answer, recording the subjects. */
function scriptedConnection(answers: Answer[]) {
  const subjects: string[] = [];
  const nc = {
    async request(subject: string) {
      subjects.push(subject);
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`unexpected request ${subject}`);
      if (answer instanceof Error) throw answer;
      return { json: () => answer };
    },
  } as unknown as NatsConnection;
  return { connect: async () => nc, subjects };
}

const varz = (loadTime: string, revision: string) => ({
  data: { config_load_time: loadTime, metadata: { config_revision: revision } },
});

describe("carrying a reload", () => {
  it("starts by writing the new config into the ConfigMap, marked Reload since now, guarded by its resourceVersion", async () => {
    const { kube, patches } = recordingKube();
    const outcome = await carryReload(
      kube,
      scriptedConnection([]).connect,
      "new",
      server,
      { kind: "start-reload" },
      NOW,
    );
    expect(outcome.kind).toBe("pending");
    expect(patches).toEqual([
      {
        kind: "ConfigMap",
        name: "demo-0-config",
        patch: {
          metadata: {
            resourceVersion: "7",
            annotations: {
              "cluster.nats-operator.io/config-revision": "new",
              "cluster.nats-operator.io/config-apply": "Reload",
              "cluster.nats-operator.io/reload-since": "2026-12-02T10:00:00Z",
              "cluster.nats-operator.io/restart-reason": null,
            },
          },
          data: { "nats.conf": '{"server_name":"demo-0"}' },
        },
      },
    ]);
  });

  it("reloads a server not yet on the target and, once it reports it, records the revision on the StatefulSet only", async () => {
    const { kube, patches } = recordingKube();
    const nats = scriptedConnection([varz("2026-12-02T09:00:00Z", "old"), {}, varz("2026-12-02T10:00:00Z", "new")]);
    expect(await carryReload(kube, nats.connect, "new", server, { kind: "confirm-reload" }, NOW)).toEqual({
      kind: "confirmed",
    });
    expect(nats.subjects).toEqual([
      `$SYS.REQ.SERVER.${ID}.VARZ`,
      `$SYS.REQ.SERVER.${ID}.RELOAD`,
      `$SYS.REQ.SERVER.${ID}.VARZ`,
    ]);
    expect(patches).toEqual([
      {
        kind: "StatefulSet",
        name: "demo-0",
        patch: {
          metadata: { resourceVersion: "9", annotations: { "cluster.nats-operator.io/config-revision": "new" } },
        },
      },
    ]);
  });

  it("sends no RELOAD to a server already on the target", async () => {
    const { kube } = recordingKube();
    const nats = scriptedConnection([varz("2026-12-02T09:00:00Z", "new")]);
    expect(await carryReload(kube, nats.connect, "new", server, { kind: "confirm-reload" }, NOW)).toEqual({
      kind: "confirmed",
    });
    expect(nats.subjects).toEqual([`$SYS.REQ.SERVER.${ID}.VARZ`]);
  });

  it("waits when the server reloaded the old file, writing nothing", async () => {
    const { kube, patches } = recordingKube();
    const nats = scriptedConnection([varz("2026-12-02T09:00:00Z", "old"), {}, varz("2026-12-02T10:00:00Z", "old")]);
    expect((await carryReload(kube, nats.connect, "new", server, { kind: "confirm-reload" }, NOW)).kind).toBe(
      "pending",
    );
    expect(patches).toEqual([]);
  });

  it("turns a rejected reload into a restart with the server's error as the reason", async () => {
    const { kube, patches } = recordingKube();
    const nats = scriptedConnection([
      varz("2026-12-02T09:00:00Z", "old"),
      { error: { code: 500, description: "config reload not supported for jetstream storage dir" } },
    ]);
    const reason = "reload failed: config reload not supported for jetstream storage dir";
    expect(await carryReload(kube, nats.connect, "new", server, { kind: "confirm-reload" }, NOW)).toEqual({
      kind: "failed",
      reason,
    });
    expect(patches).toEqual([
      {
        kind: "ConfigMap",
        name: "demo-0-config",
        patch: {
          metadata: {
            resourceVersion: "7",
            annotations: {
              "cluster.nats-operator.io/config-apply": "Restart",
              "cluster.nats-operator.io/restart-reason": reason,
              "cluster.nats-operator.io/reload-since": null,
            },
          },
        },
      },
    ]);
  });

  it("waits, without failing, when the server does not answer", async () => {
    const { kube, patches } = recordingKube();
    const nats = scriptedConnection([new Error("TIMEOUT")]);
    expect(await carryReload(kube, nats.connect, "new", server, { kind: "confirm-reload" }, NOW)).toEqual({
      kind: "pending",
      detail: `no answer: $SYS.REQ.SERVER.${ID}.VARZ: TIMEOUT`,
    });
    expect(patches).toEqual([]);
  });

  it("leaves the work to a later tick when another delivery wrote first", async () => {
    const { kube } = recordingKube(["ConfigMap", "StatefulSet"]);
    expect(
      (await carryReload(kube, scriptedConnection([]).connect, "new", server, { kind: "start-reload" }, NOW)).kind,
    ).toBe("pending");
    expect(
      (await carryReload(kube, scriptedConnection([]).connect, "new", server, { kind: "reloaded" }, NOW)).kind,
    ).toBe("pending");
    expect(
      (
        await carryReload(
          kube,
          scriptedConnection([]).connect,
          "new",
          server,
          { kind: "reload-failed", reason: "reload failed: x" },
          NOW,
        )
      ).kind,
    ).toBe("pending");
  });
});
