import { describe, expect, it } from "@jest/globals";
import { KubeRequestError, type KubeTransport } from "../../../shared/kube/index.ts";
import { podProxyPath, relayTarget, startMonitorRelay } from "./monitor-relay.ts";

describe("the monitoring relay", () => {
  it("reads a server's monitoring port through the API server's pods proxy", () => {
    expect(podProxyPath("nats", "demo-1", "jsz")).toBe("/api/v1/namespaces/nats/pods/demo-1-0:8222/proxy/jsz");
  });

  it("takes /<namespace>/<server>/<endpoint> and nothing else", () => {
    expect(relayTarget("/nats/demo-1/varz")).toEqual({ namespace: "nats", server: "demo-1", endpoint: "varz" });
    expect(relayTarget("/nats/demo-1")).toBeUndefined();
  });
});

describe("the relay's answers", () => {
  const transport = (answer: (path: string) => unknown): KubeTransport & { paths: string[] } => {
    const paths: string[] = [];
    return {
      server: "https://api.example",
      paths,
      request: async (_method, path, options) => {
        const query = new URLSearchParams(
          Object.entries(options?.query ?? {}).map(([k, v]) => [k, String(v)] as [string, string]),
        ).toString();
        paths.push(query ? `${path}?${query}` : path);
        return answer(path);
      },
      watch: async () => undefined,
    };
  };

  it("reads a server's endpoint, with its query, through the API server's pods proxy", async () => {
    const api = transport(() => ({ server_name: "demo-1", now: "x" }));
    const relay = await startMonitorRelay(api);
    try {
      const answer = await fetch(`${relay.address("demo", "nats", "demo-1")}/jsz?accounts=true&offset=0`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ server_name: "demo-1", now: "x" });
      expect(api.paths).toEqual(["/api/v1/namespaces/nats/pods/demo-1-0:8222/proxy/jsz?accounts=true&offset=0"]);
    } finally {
      await relay.close();
    }
  });

  it("passes the API server's refusal on when the pod has no address to try", async () => {
    const api = transport(() => {
      throw new KubeRequestError(503, "ServiceUnavailable", "no endpoints");
    });
    const relay = await startMonitorRelay(api);
    try {
      expect((await fetch(`${relay.address("demo", "nats", "demo-0")}/varz`)).status).toBe(503);
      expect(api.paths).toEqual([
        "/api/v1/namespaces/nats/pods/demo-0-0:8222/proxy/varz",
        "/api/v1/namespaces/nats/pods/demo-0-0",
      ]);
    } finally {
      await relay.close();
    }
  });

  it("answers nothing but /<namespace>/<server>/<endpoint>", async () => {
    const relay = await startMonitorRelay(transport(() => ({})));
    try {
      const base = relay.address("demo", "nats", "demo-0");
      expect((await fetch(`${new URL(base).origin}/nats`)).status).toBe(404);
    } finally {
      await relay.close();
    }
  });
});
