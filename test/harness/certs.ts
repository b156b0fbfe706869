// Per-run certificates, made with the openssl CLI:
//   serving CA + kube-apiserver serving certificate (SANs localhost, 127.0.0.1, ::1, ...)
//   client CA + admin client certificate (CN=harness-admin, O=system:masters)
//   RSA key pair for signing service-account tokens
// TLS keys are EC P-256 (fast to make); the service-account key is RSA 2048.
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export interface Certificates {
  dir: string;
  servingCa: string;
  servingCert: string;
  servingKey: string;
  clientCa: string;
  clientCaKey: string;
  adminCert: string;
  adminKey: string;
  saKey: string;
  saPub: string;
}

async function openssl(dir: string, args: string[]): Promise<void> {
  try {
    await execFileAsync("openssl", args, { cwd: dir, timeout: 60_000 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`openssl ${args.join(" ")} failed: ${e.stderr ?? e.message}`, { cause: err });
  }
}

async function makeCa(dir: string, name: string, cn: string): Promise<void> {
  await openssl(dir, [
    "req",
    "-x509",
    "-new",
    "-nodes",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.crt`,
    "-days",
    "7",
    "-subj",
    `/CN=${cn}/O=nats-operator-harness`,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign,digitalSignature",
  ]);
}

async function makeLeaf(dir: string, ca: string, name: string, subject: string, extensions: string): Promise<void> {
  await openssl(dir, [
    "req",
    "-new",
    "-nodes",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.csr`,
    "-subj",
    subject,
  ]);
  await writeFile(join(dir, `${name}.ext`), extensions);
  await openssl(dir, [
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    `${ca}.crt`,
    "-CAkey",
    `${ca}.key`,
    "-set_serial",
    `0x${Math.floor(Math.random() * 2 ** 48).toString(16)}`,
    "-days",
    "7",
    "-out",
    `${name}.crt`,
    "-extfile",
    `${name}.ext`,
  ]);
}

/**
 * `extraIps`: more addresses the API server is reached at (with the real node:
 * the host end of the node's link and the `kubernetes` Service's cluster IP).
 */
export async function generateCertificates(dir: string, extraIps: string[] = []): Promise<Certificates> {
  const serving = (async () => {
    await makeCa(dir, "serving-ca", "harness-serving-ca");
    await makeLeaf(
      dir,
      "serving-ca",
      "apiserver",
      "/CN=localhost",
      [
        "basicConstraints=critical,CA:FALSE",
        "keyUsage=critical,digitalSignature,keyEncipherment",
        "extendedKeyUsage=serverAuth",
        "subjectAltName=DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc," +
          "DNS:kubernetes.default.svc.cluster.local,IP:127.0.0.1,IP:::1,IP:10.0.0.1" +
          extraIps.map((ip) => `,IP:${ip}`).join(""),
        "",
      ].join("\n"),
    );
  })();
  const client = (async () => {
    await makeCa(dir, "client-ca", "harness-client-ca");
    await makeLeaf(
      dir,
      "client-ca",
      "admin",
      "/O=system:masters/CN=harness-admin",
      [
        "basicConstraints=critical,CA:FALSE",
        "keyUsage=critical,digitalSignature",
        "extendedKeyUsage=clientAuth",
        "",
      ].join("\n"),
    );
  })();
  const sa = (async () => {
    await openssl(dir, ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "sa.key"]);
    await openssl(dir, ["pkey", "-in", "sa.key", "-pubout", "-out", "sa.pub"]);
  })();
  await Promise.all([serving, client, sa]);
  const p = (f: string): string => join(dir, f);
  return {
    dir,
    servingCa: p("serving-ca.crt"),
    servingCert: p("apiserver.crt"),
    servingKey: p("apiserver.key"),
    clientCa: p("client-ca.crt"),
    clientCaKey: p("client-ca.key"),
    adminCert: p("admin.crt"),
    adminKey: p("admin.key"),
    saKey: p("sa.key"),
    saPub: p("sa.pub"),
  };
}

/** A client certificate from the run's client CA: `<dir>/<name>.{crt,key}`. */
export async function issueClientCertificate(
  certs: Certificates,
  name: string,
  identity: { user: string; groups?: string[] },
): Promise<{ cert: string; key: string }> {
  const subject = [...(identity.groups ?? []).map((g) => `/O=${g}`), `/CN=${identity.user}`].join("");
  const extensions = [
    "basicConstraints=critical,CA:FALSE",
    "keyUsage=critical,digitalSignature",
    "extendedKeyUsage=clientAuth",
    "",
  ];
  await makeLeaf(certs.dir, "client-ca", name, subject, extensions.join("\n"));
  return { cert: join(certs.dir, `${name}.crt`), key: join(certs.dir, `${name}.key`) };
}

/** A serving certificate from the run's serving CA (the one clients of the API server already trust). */
export async function issueServingCertificate(
  certs: Certificates,
  name: string,
  sans: { dns: string[]; ips: string[] },
): Promise<{ cert: string; key: string }> {
  const altNames = [...sans.dns.map((d) => `DNS:${d}`), ...sans.ips.map((ip) => `IP:${ip}`)].join(",");
  const extensions = [
    "basicConstraints=critical,CA:FALSE",
    "keyUsage=critical,digitalSignature,keyEncipherment",
    "extendedKeyUsage=serverAuth",
    `subjectAltName=${altNames}`,
    "",
  ];
  await makeLeaf(certs.dir, "serving-ca", name, `/CN=${sans.dns[0] ?? name}`, extensions.join("\n"));
  return { cert: join(certs.dir, `${name}.crt`), key: join(certs.dir, `${name}.key`) };
}
