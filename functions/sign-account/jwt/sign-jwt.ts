// Signing (act): the claims a decision holds, with the seed of the key it names. The issue time
// is the signing time, so the expiry is counted from the same clock.
import { Algorithms, encode, type ClaimsData } from "@nats-io/jwt";
import type { SignRequest } from "./claims.ts";
import type { Keyring } from "../keys/keyring.ts";

export async function signJwt(keyring: Keyring, request: SignRequest): Promise<string> {
  const issuedAt = Math.floor(Date.now() / 1000);
  // encode() fills in iss, iat and jti on the object it is given: a copy keeps the decision as it was.
  const claims = {
    ...structuredClone(request.claims),
    ...(request.ttlSeconds > 0 ? { exp: issuedAt + request.ttlSeconds } : {}),
  } as ClaimsData<unknown>;
  return encode(Algorithms.v2, claims, keyring.pair(request.signer));
}
