// Recovering an account's revocations from the servers (pure). An account whose status lost both
// its JWT and its revocations (the object applied again, a status wiped) would sign a JWT without
// them, and that JWT, newer than the one the servers hold, would let every revoked user back in.
// So before it is signed again the servers are asked for the JWT they hold, and its revocations are
// merged in; only an answer from every server of the roster is enough, since the one that does not
// answer may hold the newest JWT.
import { readJWT } from "../jwt/compare.ts";
import type { Distribution } from "../servers/distribution.ts";
import type { DistributionReading } from "../servers/types.ts";
import { nextRoster, type Roster } from "../servers/roster.ts";

export type Recovery =
  /** Every roster server answered; `jwt` is the newest JWT of the account any of them holds. */
  | { kind: "recovered"; servers: number; jwt?: string }
  /** `roster` is the roster this poll leaves, for status to count the next poll's misses from. */
  | { kind: "unanswered"; message: string; roster?: Roster };

/** Whether status has lost what revocations come from: its JWT and its own list. */
export const lostRevocations = (status: { jwt?: string; revocations?: unknown[] }): boolean =>
  !status.jwt && (status.revocations?.length ?? 0) === 0;

/** Whether the account reached a server before: a push was acknowledged or a server held its JWT. */
export const everDistributed = (distribution: Distribution | undefined): boolean =>
  Boolean(distribution?.lastPushTime) || (distribution?.current ?? 0) > 0;

export function recoverFrom(
  reading: DistributionReading,
  previous: Distribution | undefined,
  identity: string,
): Recovery {
  if (reading.kind === "off") return { kind: "unanswered", message: "no system connection is configured" };
  if (reading.kind === "unreachable") return { kind: "unanswered", message: reading.message };
  const roster = nextRoster(previous, { answered: reading.roster, at: reading.polledAt });
  const servers = roster.servers.length;
  if (servers === 0) return { kind: "unanswered", message: "no server answered $SYS.REQ.SERVER.PING.STATSZ", roster };
  const silent = servers - reading.holdings.length;
  if (silent > 0)
    return { kind: "unanswered", message: `${silent} of ${servers} servers did not answer the claims lookup`, roster };
  let newest: { jwt: string; iat: number } | undefined;
  for (const held of reading.holdings) {
    // Only a JWT that verifies and is this account's counts; a server may answer with anything.
    const claims = readJWT(held);
    if (!claims || claims.sub !== identity) continue;
    if (!newest || claims.iat > newest.iat) newest = { jwt: held, iat: claims.iat };
  }
  return { kind: "recovered", servers, ...(newest ? { jwt: newest.jwt } : {}) };
}
