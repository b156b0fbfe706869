// A self-contained kubeconfig (certificates inlined as base64 data), for the
// admin or, with `client`, for one of the node's components.
import { readFile, writeFile } from "node:fs/promises";
import { stringify } from "yaml";
import type { Certificates } from "./certs.ts";

export async function writeKubeconfig(
  path: string,
  server: string,
  certs: Certificates,
  client: { cert: string; key: string } = { cert: certs.adminCert, key: certs.adminKey },
): Promise<void> {
  const b64 = async (file: string): Promise<string> => (await readFile(file)).toString("base64");
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "harness", cluster: { server, "certificate-authority-data": await b64(certs.servingCa) } }],
    users: [
      {
        name: "harness-admin",
        user: { "client-certificate-data": await b64(client.cert), "client-key-data": await b64(client.key) },
      },
    ],
    contexts: [{ name: "harness", context: { cluster: "harness", user: "harness-admin", namespace: "default" } }],
    "current-context": "harness",
    preferences: {},
  };
  await writeFile(path, stringify(config), { mode: 0o600 });
}
