// The creds file of a user: the decorated format nsc and the nats CLI read (the user JWT, then
// its seed), read back to keep a user's key pair across re-signing.
import { fmtCreds, type KeyPair } from "@nats-io/jwt";

const BLOCK = /-{3,}[^\n]*-{3,}\r?\n([^\n]+)\r?\n\s*-{3,}[^\n]*-{3,}/g;

/** The JWT and seed of a creds file, or undefined when it is not one. */
export function parseCreds(text: string): { jwt: string; seed: string } | undefined {
  const blocks = [...text.matchAll(BLOCK)].map((m) => (m[1] ?? "").trim());
  const [jwt, seed] = blocks;
  return jwt && seed ? { jwt, seed } : undefined;
}

export const formatCreds = (jwt: string, pair: KeyPair): string => new TextDecoder().decode(fmtCreds(jwt, pair));
