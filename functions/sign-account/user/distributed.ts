// Whether a user's creds work on every server (A20), read from its account's status (pure): the
// servers accept a user JWT once they hold an account JWT of the user's account key that lists the
// key the user was signed with. So the user is Distributed when the account JWT in status carries
// that key, status.jwtHash names that JWT (a system account's JWT lives in its operator's status
// and its hash may lag behind it) and every roster server holds it (Distributed=True, current ==
// servers). Its Ready waits for that whenever a system connection is configured: a client that
// connects once the user reads Ready is accepted.
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import { noSystemConnection } from "../conditions.ts";
import { readJWT } from "../jwt/compare.ts";
import { jwtHash } from "../jwt/hash.ts";
import { jwtRevocations } from "../account/revocations.ts";
import type { NatsAccount, NatsSystemAccount } from "../objects.ts";

/** What the user's Distributed condition is, and (while False) what its Ready waits for. */
export interface UserDistribution {
  condition: ConditionUpdate;
  /** Why Ready stays False, as a message; undefined when the creds work (or nothing is pushed at all). */
  waitsFor?: string;
}

/** Whether `accountJwt` is a JWT of `accountKey` under which a user JWT issued by `signer` is valid. */
export function carriesSigner(accountJwt: string | undefined, accountKey: string, signer: string): boolean {
  if (readJWT(accountJwt)?.sub !== accountKey) return false;
  return signer === accountKey || jwtRevocations(accountJwt).signing.includes(signer);
}

const waiting = (message: string): ConditionUpdate => ({
  type: "Distributed",
  status: "False",
  reason: "Distributing",
  message,
});

/**
 * `systemConnection`: whether one is configured (without one nothing is pushed, and the signed creds
 * are Ready as soon as they are written). `signer`: the key the user's JWT is issued by.
 */
export function userDistribution(
  account: NatsAccount | NatsSystemAccount,
  accountName: string,
  accountJwt: string | undefined,
  signer: string,
  systemConnection: boolean,
): UserDistribution {
  if (!systemConnection) return { condition: noSystemConnection() };
  const accountKey = account.status?.publicKey ?? "";
  const spread = account.status?.distribution;
  const servers = spread?.servers ?? 0;
  const current = spread?.current ?? 0;
  const accountDistributed = account.status?.conditions?.find((c) => c.type === "Distributed");
  const counted = `${current} of ${servers} servers hold it`;
  const wait = (message: string): UserDistribution => ({ condition: waiting(message), waitsFor: message });
  if (!accountJwt || !carriesSigner(accountJwt, accountKey, signer))
    return wait(`waiting for ${accountName} to sign a JWT listing signing key ${signer}`);
  if (account.status?.jwtHash !== jwtHash(accountJwt))
    return wait(`waiting for ${accountName} to count the servers holding its new JWT`);
  if (accountDistributed?.status !== "True" || servers === 0 || current !== servers) {
    const why = accountDistributed ? ` (${accountDistributed.reason}: ${accountDistributed.message})` : "";
    return wait(`waiting for every server to hold ${accountName}'s JWT: ${counted}${why}`);
  }
  return {
    condition: {
      type: "Distributed",
      status: "True",
      reason: "AllServersCurrent",
      message: `every server (${servers}) holds ${accountName}'s JWT listing signing key ${signer}`,
    },
  };
}
