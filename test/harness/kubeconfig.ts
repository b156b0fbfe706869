// A self-contained admin kubeconfig (certificates inlined as base64 data).
import { readFile, writeFile } from "node:fs/promises";
import { stringify } from "yaml";
import type { Certificates } from "./certs.ts";

export async function writeKubeconfig(path: string, server: string, certs: Certificates): Promise<void> {
  const b64 = async (file: string): Promise<string> => (await readFile(file)).toString("base64");
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "harness", cluster: { server, "certificate-authority-data": await b64(certs.servingCa) } }],
    users: [
      {
        name: "harness-admin",
        user: { "client-certificate-data": await b64(certs.adminCert), "client-key-data": await b64(certs.adminKey) },
      },
    ],
    contexts: [{ name: "harness", context: { cluster: "harness", user: "harness-admin", namespace: "default" } }],
    "current-context": "harness",
    preferences: {},
  };
  await writeFile(path, stringify(config), { mode: 0o600 });
}
