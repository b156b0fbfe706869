// Whether an operator's retiring signing keys may be removed (A6): a retiring key stays listed in
// the operator JWT while an account JWT it signed is still in use, since removing it invalidates
// that JWT. Pure: from the keys and the JWTs of the operator's accounts as their statuses hold them.
import type { ConditionUpdate } from "../../../shared/kube/index.ts";

/** An account JWT of the operator's: the account's name (namespace/name) and the JWT. */
export interface SignedAccountJwt {
  account: string;
  jwt: string;
}

/** The issuer (`iss`) of a JWT, read without verifying; undefined when it does not decode. */
function issuerOf(jwt: string): string | undefined {
  try {
    const claims = JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as { iss?: unknown };
    return typeof claims.iss === "string" ? claims.iss : undefined;
  } catch {
    return undefined;
  }
}

/** `RetiringKeysInUse`, or undefined when no signing key is retiring. */
export function retiringKeysCondition(
  retiring: readonly string[],
  jwts: readonly SignedAccountJwt[],
): ConditionUpdate | undefined {
  if (retiring.length === 0) return undefined;
  const inUse = jwts.filter((j) => retiring.includes(issuerOf(j.jwt) ?? "")).map((j) => j.account);
  if (inUse.length === 0)
    return {
      type: "RetiringKeysInUse",
      status: "False",
      reason: "NoneInUse",
      message: `no account JWT is signed by a retiring key: ${retiring.join(", ")} can be removed`,
    };
  const shown = inUse.slice(0, 5).join(", ");
  const more = inUse.length > 5 ? ` and ${inUse.length - 5} more` : "";
  return {
    type: "RetiringKeysInUse",
    status: "True",
    reason: "InUse",
    message: `${inUse.length} account JWT${inUse.length === 1 ? " is" : "s are"} still signed by a retiring key: ${shown}${more}`,
  };
}
