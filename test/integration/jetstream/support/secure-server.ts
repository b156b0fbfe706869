// A nats-server that needs what story 3's connection carries: TLS verified
// by a CA, and a credentials file deciding the account (operator mode with a
// memory resolver, JetStream enabled for the account).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import {
  createAccount,
  createOperator,
  createUser,
  encodeAccount,
  encodeOperator,
  encodeUser,
  fmtCreds,
} from "@nats-io/jwt";
import { ensureBinaries } from "../../../harness/binaries.ts";
import { freePort } from "../../../harness/ports.ts";
import { spawnDetached, stopPid } from "../../../harness/processes.ts";

const run = promisify(execFile);

export interface SecureServer {
  url: string;
  ca: string;
  creds: string;
  client(): Promise<NatsConnection>;
  stop(): Promise<void>;
}

async function certificates(dir: string): Promise<void> {
  const ssl = (...args: string[]) => run("openssl", args, { cwd: dir });
  await ssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "2",
    "-subj",
    "/CN=sync-stream test CA",
  );
  await ssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
    "-subj",
    "/CN=127.0.0.1",
  );
  await writeFile(join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  await ssl(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.crt",
    "-days",
    "2",
    "-extfile",
    "san.ext",
  );
}

export async function startSecureServer(): Promise<SecureServer> {
  const bins = await ensureBinaries(() => undefined);
  const dir = await mkdtemp(join(tmpdir(), "sync-stream-secure-"));
  await certificates(dir);
  const operator = createOperator();
  const system = createAccount();
  const account = createAccount();
  const user = createUser();
  const operatorJwt = await encodeOperator("test-operator", operator, { system_account: system.getPublicKey() });
  const systemJwt = await encodeAccount("SYS", system, {}, { signer: operator });
  const accountJwt = await encodeAccount(
    "payments",
    account,
    {
      limits: {
        mem_storage: -1,
        disk_storage: -1,
        streams: -1,
        consumer: -1,
        max_ack_pending: -1,
        subs: -1,
        conn: -1,
        leaf: -1,
        imports: -1,
        exports: -1,
        data: -1,
        payload: -1,
        wildcards: true,
      } as never,
    },
    { signer: operator },
  );
  const userJwt = await encodeUser("payments-app", user, account);
  const creds = new TextDecoder().decode(fmtCreds(userJwt, user));
  const port = await freePort();
  const config = [
    "server_name: secure-0",
    `listen: 127.0.0.1:${port}`,
    `tls { cert_file: "${join(dir, "server.crt")}", key_file: "${join(dir, "server.key")}" }`,
    `jetstream { store_dir: "${join(dir, "js")}", max_file_store: 10GB, max_memory_store: 256MB }`,
    `operator: ${operatorJwt}`,
    `system_account: ${system.getPublicKey()}`,
    "resolver: MEMORY",
    `resolver_preload: { ${system.getPublicKey()}: ${systemJwt}, ${account.getPublicKey()}: ${accountJwt} }`,
  ].join("\n");
  await writeFile(join(dir, "server.conf"), `${config}\n`);
  const pid = spawnDetached(bins.natsServer, ["-c", join(dir, "server.conf")], { logFile: join(dir, "server.log") });
  const ca = await readFile(join(dir, "ca.crt"), "utf8");
  const url = `tls://127.0.0.1:${port}`;
  const server: SecureServer = {
    url,
    ca,
    creds,
    client: () =>
      connect({
        servers: url,
        tls: { ca },
        authenticator: credsAuthenticator(new TextEncoder().encode(creds)),
        timeout: 5_000,
      }),
    async stop() {
      await stopPid(pid, { expect: "nats-server" }).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const nc = await server.client();
      const reply = (await nc.request("$JS.API.INFO", "", { timeout: 2_000 })).json<{ error?: unknown }>();
      await nc.close();
      if (!reply.error) break;
    } catch (error) {
      if (Date.now() > deadline) {
        await server.stop();
        throw new Error(`secure nats-server did not come up: ${String(error)}`, { cause: error });
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return server;
}
