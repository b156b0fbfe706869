// The local kubelet's translations from a Pod spec to a local process, tested
// on their own (no cluster needed, but they live with the harness tests).
import { describe, expect, it } from "@jest/globals";
import { mkdtemp, mkdir, readFile, writeFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { V1Pod, V1Service } from "@kubernetes/client-node";
import {
  isNatsContainer,
  natsBinaryFor,
  natsServerArgs,
  natsSignalCommand,
  prepareNatsArgs,
  rewriteConfigText,
} from "../../harness/kubelet/nats.ts";
import { expandVars } from "../../harness/kubelet/env.ts";
import { hostsEntries } from "../../harness/kubelet/dns.ts";
import { writeHostsBlock } from "../../harness/hosts-file.ts";

describe("nats container translation", () => {
  it("recognises the nats container and not its sidecars", () => {
    expect(isNatsContainer({ name: "nats", image: "whatever" })).toBe(true);
    expect(isNatsContainer({ name: "server", image: "nats:2.15.2-alpine" })).toBe(true);
    expect(isNatsContainer({ name: "server", image: "docker.io/library/nats-server@sha256:abc" })).toBe(true);
    expect(isNatsContainer({ name: "reloader", image: "natsio/nats-server-config-reloader:0.16.0" })).toBe(false);
    expect(isNatsContainer({ name: "metrics", image: "natsio/prometheus-nats-exporter:0.17.3" })).toBe(false);
    expect(isNatsContainer({ name: "box", image: "natsio/nats-box:0.16" })).toBe(false);
  });

  it("runs the nats-server build of the version the image tag names, else the default build", () => {
    const builds = { "2.15.3": "/cache/nats-server-2.15.3" };
    expect(natsBinaryFor("nats:2.15.3", "/bin/nats-server", builds)).toBe("/cache/nats-server-2.15.3");
    expect(natsBinaryFor("nats:2.15.3-alpine@sha256:abc", "/bin/nats-server", builds)).toBe(
      "/cache/nats-server-2.15.3",
    );
    expect(natsBinaryFor("nats:2.15.2", "/bin/nats-server", builds)).toBe("/bin/nats-server");
    expect(natsBinaryFor(undefined, "/bin/nats-server", builds)).toBe("/bin/nats-server");
  });

  it("takes nats-server args from command and args, refusing other commands", () => {
    expect(natsServerArgs({ name: "nats", args: ["-c", "/x"] })).toEqual(["-c", "/x"]);
    expect(natsServerArgs({ name: "nats", command: ["/usr/local/bin/nats-server"], args: ["-js"] })).toEqual(["-js"]);
    expect(() => natsServerArgs({ name: "nats", command: ["sh", "-c", "nats-server"] })).toThrow(/not nats-server/);
  });

  it("rewrites listen addresses and container paths in the config, leaving URLs alone", () => {
    const root = "/w/pods/ns/nats-0/root";
    const { text } = rewriteConfigText(
      [
        "listen: 0.0.0.0:4222",
        'pid_file: "/var/run/nats/nats.pid"',
        "jetstream { store_dir: /data/jetstream }",
        "cluster { listen: :6222, routes: [nats://nats-0.nats.ns.svc.cluster.local:6222] }",
        "leafnodes { listen: 7422 }",
        "# comment /etc/nothing 0.0.0.0",
        "http_base_path: /monitor",
      ].join("\n"),
      root,
      "127.1.2.3",
    );
    const lines = text.split("\n");
    expect(lines[0]).toBe("listen: 127.1.2.3:4222");
    expect(lines[1]).toBe(`pid_file: "${root}/var/run/nats/nats.pid"`);
    expect(lines[2]).toBe(`jetstream { store_dir: ${root}/data/jetstream }`);
    expect(lines[3]).toBe(
      'cluster { listen: "127.1.2.3:6222", routes: [nats://nats-0.nats.ns.svc.cluster.local:6222] }',
    );
    expect(lines[4]).toBe('leafnodes { listen: "127.1.2.3:7422" }');
    expect(lines[5]).toBe("# comment /etc/nothing 0.0.0.0");
    expect(lines[6]).toBe("http_base_path: /monitor");
  });

  it("renders the config and its includes next to the originals and binds the pod address", async () => {
    const root = await mkdtemp(join(tmpdir(), "harness-nats-"));
    try {
      await mkdir(join(root, "etc/nats"), { recursive: true });
      await writeFile(join(root, "etc/nats/nats.conf"), 'include "auth.conf"\nhttp: 0.0.0.0:8222\n');
      await writeFile(join(root, "etc/nats/auth.conf"), "authorization { token: $TOKEN }\npid_file: /run/n.pid\n");
      const prepared = await prepareNatsArgs(
        ["--addr", "0.0.0.0", "--config=/etc/nats/nats.conf", "-P", "/run/x.pid"],
        root,
        "127.9.9.9",
      );
      expect(prepared.argv).toEqual([
        "--config",
        join(root, "etc/nats/.harness-nats.conf"),
        "-P",
        join(root, "run/x.pid"),
        "-a",
        "127.9.9.9",
      ]);
      expect(prepared.configFile).toBe(join(root, "etc/nats/nats.conf"));
      const main = await readFile(join(root, "etc/nats/.harness-nats.conf"), "utf8");
      expect(main).toBe('include ".harness-auth.conf"\nhttp: 127.9.9.9:8222\n');
      expect(await readFile(join(root, "etc/nats/.harness-auth.conf"), "utf8")).toContain(
        `pid_file: ${root}/run/n.pid`,
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("translates nats-server --signal preStop hooks into signals", () => {
    expect(natsSignalCommand(["nats-server", "-sl=ldm=/var/run/nats/nats.pid"])).toBe("SIGUSR2");
    expect(natsSignalCommand(["/bin/nats-server", "--signal", "ldm=/x.pid"])).toBe("SIGUSR2");
    expect(natsSignalCommand(["nats-server", "--sl", "reload"])).toBe("SIGHUP");
    expect(natsSignalCommand(["nats-server", "-sl=quit"])).toBe("SIGINT");
    expect(natsSignalCommand(["sh", "-c", "sleep 5"])).toBeUndefined();
  });

  it("expands $(VAR) like the kubelet", () => {
    expect(expandVars("$(A)-$(B)-$$(A)-$(C)", { A: "1", B: "2" })).toBe("1-2-$(A)-$(C)");
  });
});

describe("in-cluster DNS names", () => {
  const pod = (name: string, ns: string): V1Pod => ({
    metadata: { name, namespace: ns, labels: { app: "nats" } },
    spec: { hostname: name, subdomain: "nats", containers: [] },
  });
  const svc = (name: string, ns: string, publishNotReady: boolean): V1Service => ({
    metadata: { name, namespace: ns },
    spec: { clusterIP: "None", selector: { app: "nats" }, publishNotReadyAddresses: publishNotReady },
  });

  it("names pods by hostname.subdomain and services by their selected pods", () => {
    const entries = hostsEntries(
      [
        { pod: pod("nats-0", "a"), ip: "127.1.1.2", ready: true },
        { pod: pod("nats-1", "a"), ip: "127.1.1.3", ready: false },
      ],
      [svc("nats", "a", false), svc("nats-all", "a", true), svc("nats", "b", true)],
    );
    expect(entries.get("127.1.1.2")).toEqual(
      expect.arrayContaining([
        "nats-0.nats.a.svc.cluster.local",
        "nats-0.nats.a.svc",
        "nats-0.nats.a",
        "nats.a.svc.cluster.local",
        "nats-all.a.svc",
      ]),
    );
    const second = entries.get("127.1.1.3") ?? [];
    expect(second).toContain("nats-1.nats.a.svc.cluster.local");
    expect(second).toContain("nats-all.a.svc.cluster.local"); // publishNotReadyAddresses
    expect(second).not.toContain("nats.a.svc.cluster.local"); // not ready
    expect([...entries.values()].flat().some((n) => n.includes(".b."))).toBe(false);
  });

  it("keeps one marked block per run in the hosts file and drops stale ones", async () => {
    const dir = await mkdtemp(join(tmpdir(), "harness-hosts-"));
    try {
      const hosts = join(dir, "hosts");
      await writeFile(hosts, "127.0.0.1 localhost\n");
      const liveWorkDir = join(dir, "live");
      await mkdir(liveWorkDir);
      writeHostsBlock("run1", liveWorkDir, new Map([["127.1.1.2", ["a.b.svc"]]]), hosts);
      writeHostsBlock("gone", join(dir, "gone"), new Map([["127.1.1.9", ["x.y.svc"]]]), hosts);
      writeHostsBlock("run2", liveWorkDir, new Map([["127.1.2.2", ["c.d.svc"]]]), hosts);
      const text = await readFile(hosts, "utf8");
      expect(text.startsWith("127.0.0.1 localhost\n")).toBe(true);
      expect(text).toContain("127.1.1.2 a.b.svc");
      expect(text).toContain("127.1.2.2 c.d.svc");
      expect(text).not.toContain("x.y.svc"); // its work dir does not exist
      writeHostsBlock("run1", liveWorkDir, new Map(), hosts);
      expect(await readFile(hosts, "utf8")).toBe(
        `127.0.0.1 localhost\n# >>> nats-operator-harness run2 ${liveWorkDir}\n127.1.2.2 c.d.svc\n# <<< nats-operator-harness run2\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
