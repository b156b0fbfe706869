// Reading NATS JWTs for the trust checks: decoded with the signature verified, and the keys an
// operator may sign accounts with.
import { decode, type ClaimsData, type Generic } from "@nats-io/jwt";

/** Decodes and verifies the signature; `error` says why the text is no valid NATS JWT. */
export function decodeClaims(jwt: string): { claims?: ClaimsData<Generic>; error?: string } {
  try {
    return { claims: decode<Generic>(jwt.trim()) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Public keys an operator signs with: its identity and every signing key it lists. */
export function operatorKeys(operator: ClaimsData<Generic>): string[] {
  const signing = operator.nats["signing_keys"];
  const listed = Array.isArray(signing)
    ? signing.map((k: unknown) =>
        typeof k === "string"
          ? k
          : typeof k === "object" && k !== null && "key" in k && typeof k.key === "string"
            ? k.key
            : undefined,
      )
    : [];
  return [operator.sub, ...listed.filter((k): k is string => k !== undefined)];
}
