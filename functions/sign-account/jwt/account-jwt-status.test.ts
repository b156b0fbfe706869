import { describe, expect, it } from "@jest/globals";
import { jwtHash } from "./hash.ts";
import { withAccountJwt } from "./account-jwt-status.ts";

/** An unsigned JWT with these claims: the fields are read without verifying. */
const jwtWith = (claims: Record<string, unknown>): string =>
  `e30.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.c2ln`;

describe("withAccountJwt", () => {
  it("records the JWT, its digest and its exp claim as an RFC 3339 time", () => {
    const jwt = jwtWith({ iat: 1_800_000_000, exp: 1_800_172_800 });
    expect(withAccountJwt({ publicKey: "A1" }, jwt)).toEqual({
      publicKey: "A1",
      jwt,
      jwtHash: jwtHash(jwt),
      jwtExpires: "2027-01-17T08:00:00Z",
    });
  });

  it("drops the previous JWT's expiry for one that never expires", () => {
    const jwt = jwtWith({ iat: 1_800_000_000 });
    const status = withAccountJwt({ jwt: "old", jwtHash: "old", jwtExpires: "2027-01-17T08:00:00Z" }, jwt);
    expect(status).toEqual({ jwt, jwtHash: jwtHash(jwt) });
  });
});
