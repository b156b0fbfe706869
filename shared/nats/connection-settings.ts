import { createHash } from "node:crypto";
import type { Kube } from "../kube/client.ts";
import type { KubeObject } from "../kube/object.ts";

/** The parts of a NatsConnection spec needed to connect (mirrors shared/api NatsConnectionSpec). */
export interface ConnectionSpec {
  servers: string[];
  tls?: { ca?: { secretKeyRef: { name: string; key?: string } } };
  credentials?: { secretKeyRef: { name: string; key?: string } };
}

export const defaultCredentialsKey = "user.creds";
export const defaultCaKey = "ca.crt";

/** What a client needs to reach the servers, read from the spec and its Secrets. */
export interface ConnectionSettings {
  servers: string[];
  /** Contents of a `.creds` file. */
  creds?: string;
  /** PEM CA bundle. */
  ca?: string;
  /** Changes whenever anything above changes; the pool reconnects on a new one. */
  fingerprint: string;
}

export type SettingsResult =
  | { ok: true; settings: ConnectionSettings }
  | { ok: false; reason: "SecretNotFound" | "InvalidSecret"; message: string };

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

const credsPattern =
  /-----BEGIN NATS USER JWT-----[\s\S]+?------END NATS USER JWT------[\s\S]*-----BEGIN USER NKEY SEED-----[\s\S]+?------END USER NKEY SEED------/;

async function secretValue(
  kube: Kube,
  namespace: string,
  ref: { name: string; key?: string },
  defaultKey: string,
): Promise<{ ok: true; value: string } | { ok: false; reason: "SecretNotFound" | "InvalidSecret"; message: string }> {
  const key = ref.key ?? defaultKey;
  const secret = await kube.get<SecretObject>({ apiVersion: "v1", kind: "Secret", namespace, name: ref.name });
  if (!secret) return { ok: false, reason: "SecretNotFound", message: `Secret ${namespace}/${ref.name} not found` };
  const encoded = secret.data?.[key];
  if (encoded === undefined)
    return { ok: false, reason: "InvalidSecret", message: `Secret ${namespace}/${ref.name} has no key ${key}` };
  return { ok: true, value: Buffer.from(encoded, "base64").toString("utf8") };
}

/** Reads the credentials and CA a NatsConnection names (Secrets in its own namespace only). */
export async function readConnectionSettings(
  kube: Kube,
  namespace: string,
  spec: ConnectionSpec,
): Promise<SettingsResult> {
  const settings: Omit<ConnectionSettings, "fingerprint"> = { servers: [...spec.servers] };
  if (spec.credentials) {
    const creds = await secretValue(kube, namespace, spec.credentials.secretKeyRef, defaultCredentialsKey);
    if (!creds.ok) return creds;
    if (!credsPattern.test(creds.value)) {
      return {
        ok: false,
        reason: "InvalidSecret",
        message: `Secret ${namespace}/${spec.credentials.secretKeyRef.name} does not hold a NATS credentials file`,
      };
    }
    settings.creds = creds.value;
  }
  if (spec.tls?.ca) {
    const ca = await secretValue(kube, namespace, spec.tls.ca.secretKeyRef, defaultCaKey);
    if (!ca.ok) return ca;
    if (!ca.value.includes("-----BEGIN CERTIFICATE-----")) {
      return {
        ok: false,
        reason: "InvalidSecret",
        message: `Secret ${namespace}/${spec.tls.ca.secretKeyRef.name} does not hold a PEM CA bundle`,
      };
    }
    settings.ca = ca.value;
  }
  const fingerprint = createHash("sha256").update(JSON.stringify(settings)).digest("hex").slice(0, 16);
  return { ok: true, settings: { ...settings, fingerprint } };
}
