// TLS Secrets a user would bring for a gateway: one private CA, and per cluster a certificate
// for the names its peers dial, made with the openssl CLI in a temporary directory.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { KubeObject } from "../../../../shared/kube/object.ts";

const run = promisify(execFile);

async function openssl(dir: string, args: string[]): Promise<void> {
  await run("openssl", args, { cwd: dir, timeout: 60_000 });
}

const ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

export interface CertificateAuthority {
  /** Issues a certificate valid for `hosts`, usable as server and as client (gateways dial both ways). */
  issue(name: string, hosts: readonly string[]): Promise<{ "ca.crt": string; "tls.crt": string; "tls.key": string }>;
  dispose(): Promise<void>;
}

export async function createCertificateAuthority(): Promise<CertificateAuthority> {
  const dir = await mkdtemp(join(tmpdir(), "gateway-ca-"));
  await openssl(dir, [
    "req",
    "-x509",
    "-new",
    ...ecKey,
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "2",
    "-subj",
    "/CN=gateway test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign,digitalSignature",
  ]);
  const ca = await readFile(join(dir, "ca.crt"), "utf8");
  return {
    async issue(name, hosts) {
      const extensions = [
        `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(",")}`,
        "extendedKeyUsage=serverAuth,clientAuth",
        "keyUsage=critical,digitalSignature,keyEncipherment",
      ].join("\n");
      await writeFile(join(dir, `${name}.ext`), `${extensions}\n`);
      await openssl(dir, [
        "req",
        "-new",
        ...ecKey,
        "-keyout",
        `${name}.key`,
        "-out",
        `${name}.csr`,
        "-subj",
        `/CN=${name}`,
      ]);
      await openssl(dir, [
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        `${name}.crt`,
        "-days",
        "2",
        "-extfile",
        `${name}.ext`,
      ]);
      return {
        "ca.crt": ca,
        "tls.crt": await readFile(join(dir, `${name}.crt`), "utf8"),
        "tls.key": await readFile(join(dir, `${name}.key`), "utf8"),
      };
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A `kubernetes.io/tls` Secret holding `values`. */
export function tlsSecret(namespace: string, name: string, values: Record<string, string>): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace },
    type: "kubernetes.io/tls",
    stringData: values,
  } as KubeObject;
}
