// The config revision: one digest over every server's config and StatefulSet spec and the
// mounted TLS Secrets, so any change a server would notice moves it. Digests are taken over
// canonical JSON (keys sorted), so a release that only reorders what it renders moves none of them
// and restarts no server; test/fixtures/cluster/revisions.json records them per fixture.
import { createHash } from "node:crypto";

export interface RevisionServerInput {
  /** Canonical JSON of the config rendered without `server_metadata`. */
  config: string;
  /** Canonical JSON of the StatefulSet spec without `volumeClaimTemplates`. */
  specJson: string;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** JSON with every object's keys sorted: the same text for any order the keys were written in. */
export function canonicalJson(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : isPlainObject(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((key) => [key, sorted(v[key])]),
          )
        : v;
  return JSON.stringify(sorted(value));
}

const sha256 = () => createHash("sha256");
export const shortDigest = (text: string, length = 10): string => sha256().update(text).digest("hex").slice(0, length);

/**
 * Digest of a Secret's data: keys sorted, each as key bytes, a NUL, the value length
 * as 8-byte big-endian, then the value; the first 16 hex characters.
 */
export function secretDigest(data: Record<string, string> | undefined): string {
  if (!data) return "";
  const hash = sha256();
  for (const key of Object.keys(data).sort()) {
    const value = Buffer.from(data[key] ?? "", "base64");
    const length = Buffer.alloc(8);
    length.writeBigUInt64BE(BigInt(value.length));
    hash
      .update(Buffer.from(key, "utf8"))
      .update(Buffer.from([0]))
      .update(length)
      .update(value);
  }
  return hash.digest("hex").slice(0, 16);
}

/** TLS Secret digests in the order client, routes, gateway, leafnodes ("" where none). */
export interface TlsDigests {
  client: string;
  routes: string;
  gateway: string;
  leafnodes: string;
}

export function configRevision(servers: readonly RevisionServerInput[], tls: TlsDigests): string {
  const hash = sha256();
  for (const server of servers) hash.update(server.config).update(server.specJson);
  for (const digest of [tls.client, tls.routes, tls.gateway, tls.leafnodes]) hash.update(digest);
  return hash.digest("hex").slice(0, 10);
}
