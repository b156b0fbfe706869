import { afterEach, describe, expect, it, jest } from "@jest/globals";
import { mkdtempSync, writeFileSync } from "node:fs";
import http2 from "node:http2";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeRequestError } from "./errors.ts";
import { createTransport, sameMaterial } from "./transport.ts";

// A self-signed certificate for 127.0.0.1 (EC P-256, valid until 2125): the server's, its own CA,
// and the client certificate the API server would verify.
const cert = `-----BEGIN CERTIFICATE-----
MIIBsTCCAVegAwIBAgIUeMfE8y9okDXViTXscGAN3L08JQMwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTIwMzA4MTAwNFoYDzIxMjYxMTA5
MDgxMDA0WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAT4MCJrbfhgzpaUSIkvJk6p5Ei9aewrwFlWxgUU8fRlqEOSKftAA9uJ
wVx7DQuTitOdOKb9qGOYZSYytZEiZgalo4GEMIGBMB0GA1UdDgQWBBRqAt8iVfhQ
R4JxnFavIeHVnPou2TAfBgNVHSMEGDAWgBRqAt8iVfhQR4JxnFavIeHVnPou2TAP
BgNVHRMBAf8EBTADAQH/MA8GA1UdEQQIMAaHBH8AAAEwHQYDVR0lBBYwFAYIKwYB
BQUHAwEGCCsGAQUFBwMCMAoGCCqGSM49BAMCA0gAMEUCIAK5YpqBXqJkc1b+qAfB
2Xjh3GTQazHck9m5e5WzTGCBAiEAzyv+T6tZ0MsLESa54juopYSk3LaChUzOFybB
rEvqGmI=
-----END CERTIFICATE-----
`;
const key = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJCnRwgJT+SCeggGz
Y+mmrsNJUAsRgnWbdCioLVo4COKhRANCAAT4MCJrbfhgzpaUSIkvJk6p5Ei9aewr
wFlWxgUU8fRlqEOSKftAA9uJwVx7DQuTitOdOKb9qGOYZSYytZEiZgal
-----END PRIVATE KEY-----
`;

type Server = (http2.Http2SecureServer | https.Server) & { connections: number; clientCerts: number };

/** An API server stand-in: echoes the request line, answers 404 for paths under /missing. */
async function serve(protocol: "h2" | "http/1.1"): Promise<Server> {
  const answer = (req: http2.Http2ServerRequest | import("node:http").IncomingMessage, res: unknown) => {
    const response = res as import("node:http").ServerResponse;
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      if (req.url?.startsWith("/missing")) {
        response.writeHead(404, { "content-type": "application/json" });
        response.end(JSON.stringify({ kind: "Status", reason: "NotFound", message: "not there" }));
        return;
      }
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ method: req.method, url: req.url, version: req.httpVersion, body }));
    });
  };
  const options = { key, cert, ca: cert, requestCert: true, rejectUnauthorized: true };
  const server = (
    protocol === "h2"
      ? http2.createSecureServer({ ...options, allowHTTP1: true }, answer)
      : https.createServer(options, answer)
  ) as Server;
  server.connections = 0;
  server.clientCerts = 0;
  server.on("secureConnection", (socket: import("node:tls").TLSSocket) => {
    server.connections++;
    if (socket.authorized) server.clientCerts++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

function kubeconfigFor(server: Server): string {
  const { port } = server.address() as AddressInfo;
  const b64 = (pem: string) => Buffer.from(pem).toString("base64");
  const file = join(mkdtempSync(join(tmpdir(), "transport-test-")), "kubeconfig");
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        { name: "c", cluster: { server: `https://127.0.0.1:${port}`, "certificate-authority-data": b64(cert) } },
      ],
      users: [{ name: "u", user: { "client-certificate-data": b64(cert), "client-key-data": b64(key) } }],
      contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
      "current-context": "c",
    }),
  );
  return file;
}

const servers: Server[] = [];
const saved = { KUBECONFIG: process.env.KUBECONFIG, DISABLE_HTTP2: process.env.DISABLE_HTTP2 };
afterEach(async () => {
  if (saved.KUBECONFIG === undefined) delete process.env.KUBECONFIG;
  else process.env.KUBECONFIG = saved.KUBECONFIG;
  if (saved.DISABLE_HTTP2 === undefined) delete process.env.DISABLE_HTTP2;
  else process.env.DISABLE_HTTP2 = saved.DISABLE_HTTP2;
  for (const server of servers.splice(0)) {
    (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function transportTo(protocol: "h2" | "http/1.1", env: Record<string, string> = {}) {
  const server = await serve(protocol);
  servers.push(server);
  process.env.KUBECONFIG = kubeconfigFor(server);
  Object.assign(process.env, env);
  return { server, transport: await createTransport() };
}

describe("the API server transport", () => {
  // Real TLS servers on loopback: a handshake and a burst of 200 requests take well over Jest's
  // default 5 s when every core is busy (a full unit run beside integration tests). Nothing here
  // measures time, so the budget is generous.
  jest.setTimeout(30_000);

  it("multiplexes a burst of requests over one HTTP/2 connection, with the client certificate", async () => {
    const { server, transport } = await transportTo("h2");
    const answers = (await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        transport.request("PATCH", `/apis/x/v1/things/t${i}`, { body: { i }, query: { fieldManager: "m" } }),
      ),
    )) as { method: string; url: string; version: string; body: string }[];
    expect(server.connections).toBe(1);
    expect(server.clientCerts).toBe(1);
    expect(answers[7]).toEqual({
      method: "PATCH",
      url: "/apis/x/v1/things/t7?fieldManager=m",
      version: "2.0",
      body: '{"i":7}',
    });
  });

  it("turns an HTTP/2 error answer into a KubeRequestError", async () => {
    const { transport } = await transportTo("h2");
    const error = await transport.request("GET", "/missing/thing").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeRequestError);
    expect(error).toMatchObject({ code: 404, reason: "NotFound", message: "not there" });
  });

  it("falls back to HTTP/1.1 where the server does not speak HTTP/2, and reuses its sockets", async () => {
    const { server, transport } = await transportTo("http/1.1");
    for (let i = 0; i < 5; i++) {
      expect(await transport.request("GET", "/api/v1/namespaces/default")).toMatchObject({ version: "1.1" });
    }
    expect(server.connections).toBe(1);
  });

  it("keeps to HTTP/1.1 with DISABLE_HTTP2, one socket for sequential requests", async () => {
    const { server, transport } = await transportTo("h2", { DISABLE_HTTP2: "1" });
    for (let i = 0; i < 5; i++) {
      expect(await transport.request("GET", "/api/v1/namespaces/default")).toMatchObject({ version: "1.1" });
    }
    expect(server.connections).toBe(1);
  });
});

describe("TLS material", () => {
  it("is compared by content, as the client library reads it afresh for every request", () => {
    expect(sameMaterial(Buffer.from(cert), Buffer.from(cert))).toBe(true);
    expect(sameMaterial(cert, Buffer.from(cert))).toBe(true);
    expect(sameMaterial([Buffer.from(cert)], [Buffer.from(cert)])).toBe(true);
    expect(sameMaterial(Buffer.from(cert), Buffer.from(key))).toBe(false);
    expect(sameMaterial(undefined, Buffer.from(cert))).toBe(false);
    expect(sameMaterial(undefined, undefined)).toBe(true);
  });
});
