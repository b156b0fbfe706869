// Taking over an account whose JWT the servers already hold (pure, A46–A50): before the first JWT
// signed from spec replaces the one made elsewhere (by nsc, say), the claims the servers' JWT
// carries and the new one would not are named by their JWT field path (`exports[0]`,
// `signing_keys[1]`), so a takeover never drops an export or a scope unnoticed. A claim the spec
// sets to another value is not a drop; an empty one (`{}`, `[]`, `""`, `false`, 0 and -1, which
// mean "none" or "unlimited" in account JWTs) is not a claim. Revocations are merged, not dropped.
import { readJWT } from "../jwt/compare.ts";
import type { Refusal } from "../conditions.ts";
import type { Reason } from "../../../shared/api/index.ts";
import type { DistributionReading } from "../servers/types.ts";

/** Fields of an account JWT's `nats` claims left out of the comparison: merged, or set by the signer. */
const MERGED = new Set(["revocations", "type", "version"]);

const isEmpty = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  value === "" ||
  value === false ||
  value === 0 ||
  value === -1 ||
  (Array.isArray(value) && value.every(isEmpty)) ||
  (typeof value === "object" && !Array.isArray(value) && Object.values(value as object).every(isEmpty));

/** What identifies an element of a claim list: a signing key's key, an export's name, a subject. */
function identityOf(value: unknown): unknown {
  if (typeof value === "string") return value;
  if (!value || typeof value !== "object") return undefined;
  const o = value as Record<string, unknown>;
  return o["key"] ?? o["name"] ?? o["subject"] ?? o["account"];
}

function dropped(held: unknown, signed: unknown, path: string, out: string[]): void {
  if (isEmpty(held)) return;
  // A list is named element by element, so each lost export or key is told apart.
  if (isEmpty(signed) && !Array.isArray(held)) {
    out.push(path);
    return;
  }
  if (Array.isArray(held)) {
    const mine = Array.isArray(signed) ? signed : [];
    held.forEach((element, i) => {
      const match = mine.find((m) => identityOf(m) !== undefined && identityOf(m) === identityOf(element));
      // A plain signing key matching a scoped one held: the scope would be lost.
      if (match === undefined || (typeof match === "string" && typeof element === "object")) {
        if (!isEmpty(element)) out.push(`${path}[${i}]`);
        return;
      }
      if (typeof element === "object") dropped(element, match, `${path}[${i}]`, out);
    });
    return;
  }
  if (typeof held === "object" && typeof signed === "object" && !Array.isArray(signed)) {
    const mine = signed as Record<string, unknown>;
    for (const [key, value] of Object.entries(held as Record<string, unknown>))
      dropped(value, mine[key], path ? `${path}.${key}` : key, out);
  }
  // Two scalars, or a scalar set to another shape: set to another value, not dropped.
}

/** The JWT field paths the servers' JWT carries and `signed` (the `nats` claims to sign) would not. */
export function droppedClaims(heldJwt: string, signed: Record<string, unknown>): string[] {
  const held = readJWT(heldJwt)?.nats as Record<string, unknown> | undefined;
  if (!held) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(held)) if (!MERGED.has(key)) dropped(value, signed[key], key, out);
  return out;
}

/** JetStream tiers of the servers' JWT that a NatsAccount cannot name (only R1–R5 exist in spec). */
export function inexpressibleTiers(heldJwt: string): string[] {
  const limits = (readJWT(heldJwt)?.nats as { limits?: { tiered_limits?: Record<string, unknown> } } | undefined)
    ?.limits;
  return Object.keys(limits?.tiered_limits ?? {}).filter((tier) => !/^R[1-5]$/.test(tier));
}

/**
 * The newest JWT of `identity` a server holds that this account did not sign: issued after `own`
 * (the JWT status holds for that identity), so made elsewhere since. Every signing over it is a
 * takeover, judged as the first one is.
 */
export function foreignJwt(reading: DistributionReading, identity: string, own: string): string | undefined {
  if (reading.kind !== "read") return undefined;
  const ours = readJWT(own)?.iat ?? 0;
  let newest: { jwt: string; iat: number } | undefined;
  for (const held of reading.holdings) {
    const claims = held && held !== own ? readJWT(held) : undefined;
    if (!claims || claims.sub !== identity || claims.iat <= ours) continue;
    if (!newest || claims.iat > newest.iat) newest = { jwt: held, iat: claims.iat };
  }
  return newest?.jwt;
}

/** The Ready reasons of a takeover refused: the servers are asked again on every reconcile. */
export const ADOPTION_REFUSALS: ReadonlySet<string> = new Set<Reason>(["AdoptionDropsClaims", "TierInexpressible"]);

/**
 * Why the first JWT signed from spec must not replace `heldJwt` (the newest JWT the servers hold,
 * made elsewhere), or undefined: a tier no NatsAccount can name, whatever `droppedClaims` says, or
 * claims it would drop unless `droppedClaims` is `Accept`.
 */
export function adoptionRefusal(
  what: string,
  droppedClaimsPolicy: "Refuse" | "Accept" | undefined,
  heldJwt: string,
  signed: Record<string, unknown>,
): Refusal | undefined {
  const tiers = inexpressibleTiers(heldJwt);
  if (tiers.length > 0)
    return {
      reason: "TierInexpressible",
      message:
        `the JWT the servers hold for ${what} has JetStream tier ${tiers.join(", ")}, which a NatsAccount ` +
        "cannot express (tiers are R1 to R5); it is not taken over",
    };
  if (droppedClaimsPolicy === "Accept") return undefined;
  const paths = droppedClaims(heldJwt, signed);
  if (paths.length === 0) return undefined;
  return {
    reason: "AdoptionDropsClaims",
    message:
      `the JWT the servers hold carries claims the one signed from spec would not: ${paths.join(", ")}; ` +
      "declare them in spec, or set spec.adoption.droppedClaims to Accept to sign without them",
  };
}

/**
 * The same refusal for a system account's first JWT (A48). Its two monitoring exports are the
 * project's own, so what nsc adds to them (a description, an info URL) is no drop; any other
 * export or import, and any other claim, is.
 */
export function systemAdoptionRefusal(
  droppedClaimsPolicy: "Refuse" | "Accept" | undefined,
  heldJwt: string,
  signed: Record<string, unknown>,
): Refusal | undefined {
  if (droppedClaimsPolicy === "Accept") return undefined;
  const paths = droppedClaims(heldJwt, signed).filter((path) => !/^exports\[\d+\]\./.test(path));
  if (paths.length === 0) return undefined;
  return {
    reason: "AdoptionDropsClaims",
    message:
      `the system account JWT the servers hold carries claims the one signed from spec would not: ${paths.join(", ")}; ` +
      "set the NatsSystemAccount's spec.adoption.droppedClaims to Accept to sign without them",
  };
}
