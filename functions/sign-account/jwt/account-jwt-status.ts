// The status fields that go with an account JWT: the JWT, its digest (status.jwtHash) and when it
// expires (status.jwtExpires: kube-state-metrics reads an account's expiry there, since it cannot
// decode the JWT). Set together, so a new JWT never keeps another's expiry.
import type { NatsAccountStatus } from "../../../shared/api/index.ts";
import { expiresAt } from "../servers/distribution.ts";
import { jwtHash } from "./hash.ts";

export type AccountJwtFields = Pick<NatsAccountStatus, "jwt" | "jwtHash" | "jwtExpires">;

/** The JWT, its digest and its expiry (none for a JWT that never expires). */
export function accountJwtFields(jwt: string): AccountJwtFields {
  const expires = expiresAt(jwt);
  return { jwt, jwtHash: jwtHash(jwt), ...(expires ? { jwtExpires: expires } : {}) };
}

/** `status` holding `jwt` in place of the JWT it held. */
export function withAccountJwt(status: NatsAccountStatus, jwt: string): NatsAccountStatus {
  const { jwtExpires: _expires, ...rest } = status;
  return { ...rest, ...accountJwtFields(jwt) };
}
