// The creds file of a user: the decorated format nsc and the nats CLI read (the user JWT, then
// its seed), read back to keep a user's key pair across re-signing.
import { createHash } from "node:crypto";
import { fmtCreds, type KeyPair } from "@nats-io/jwt";
import { DEFAULT_CREDENTIALS_KEY } from "../../../shared/api/index.ts";
import type { NatsUser } from "../objects.ts";

const BLOCK = /-{3,}[^\n]*-{3,}\r?\n([^\n]+)\r?\n\s*-{3,}[^\n]*-{3,}/g;

/** The JWT and seed of a creds file, or undefined when it is not one. */
export function parseCreds(text: string): { jwt: string; seed: string } | undefined {
  const blocks = [...text.matchAll(BLOCK)].map((m) => (m[1] ?? "").trim());
  const [jwt, seed] = blocks;
  return jwt && seed ? { jwt, seed } : undefined;
}

export const formatCreds = (jwt: string, pair: KeyPair): string => new TextDecoder().decode(fmtCreds(jwt, pair));

/** Where a user's creds go: spec.credentials, or `<user>-creds` under `user.creds`. */
export const credsSecretOf = (user: NatsUser): { name: string; key: string } => ({
  name: user.spec.credentials?.secretKeyRef.name ?? `${user.metadata.name}-creds`,
  key: user.spec.credentials?.secretKeyRef.key ?? DEFAULT_CREDENTIALS_KEY,
});

/**
 * The digest of a creds Secret's data (base64 values by key), for its creds-digest annotation: a
 * one-way digest over data that holds a random seed, so it tells the data apart and reveals none.
 */
export function credsDigest(data: Readonly<Record<string, string>> | undefined): string {
  const lines = Object.entries(data ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`);
  return createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 32);
}
