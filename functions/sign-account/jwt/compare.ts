// Whether a JWT already says what would be signed (pure). Two JWTs carry the same claims when they
// are equal but for iat and jti, with exp reduced to whether there is one: re-signing only then
// keeps the issue time, which matters because a resolver only takes a newer JWT. An expiring JWT is
// renewed at half its lifetime, or when its lifetime is not the TTL (more than 2 s apart).
import { decode, type ClaimsData } from "@nats-io/jwt";
import { jsonEqual } from "../../../shared/kube/index.ts";
import type { SignRequest } from "./claims.ts";

/** How far a JWT's lifetime may be from the TTL before it is re-signed. */
const LIFETIME_SLACK_SECONDS = 2;

export type Standing =
  /** The JWT says it all; it expires (when it does) with renewal due at `renewAt`. */
  { kind: "current"; renewAt?: Date } | { kind: "resign"; why: string };

/** Decodes a JWT with its signature verified; undefined when it is not one. */
export function readJWT(jwt: string | undefined): ClaimsData<Record<string, unknown>> | undefined {
  if (!jwt) return undefined;
  try {
    return decode<Record<string, unknown>>(jwt.trim());
  } catch {
    return undefined;
  }
}

function comparable(claims: ClaimsData<unknown>): Record<string, unknown> {
  const { iat: _iat, jti: _jti, exp, ...rest } = claims;
  return { ...rest, expires: exp !== undefined };
}

/** How `jwt` stands against what `request` would sign, at `now`. */
export function standing(jwt: string | undefined, request: SignRequest, now: Date): Standing {
  const existing = readJWT(jwt);
  if (!existing) return { kind: "resign", why: jwt ? "the JWT does not verify" : "nothing is signed yet" };
  const wanted = { ...request.claims, iss: request.signer, expires: request.ttlSeconds > 0 };
  if (!jsonEqual(comparable(existing), wanted)) return { kind: "resign", why: "the claims changed" };
  if (request.ttlSeconds === 0 || existing.exp === undefined) return { kind: "current" };
  const lifetime = existing.exp - existing.iat;
  if (Math.abs(lifetime - request.ttlSeconds) > LIFETIME_SLACK_SECONDS)
    return { kind: "resign", why: "the TTL changed" };
  const renewAt = new Date((existing.iat + lifetime / 2) * 1000);
  if (now.getTime() >= renewAt.getTime()) return { kind: "resign", why: "half its lifetime has passed" };
  return { kind: "current", renewAt };
}
