// What a NatsCluster's servers are allowed to trust, judged from the two JWTs alone (pure):
// an operator JWT, and a system account JWT that operator issued. nats-server checks the same
// at startup, but a server that refuses its config only crash-loops; judging here lets the
// cluster be held with a reason instead.
import { isAccount, isOperator } from "@nats-io/jwt";
import { decodeClaims, operatorKeys } from "./jwt-claims.ts";

export type TrustRefusalReason =
  | "TrustNotFound"
  | "TrustNotReady"
  | "TrustInvalid"
  | "NoGrant"
  | "AccountTrustNotFound"
  | "AccountTrustNotReady"
  | "AccountTrustInvalid";

/** Trust material ready to render: the operator JWT, and the system account it names. */
export interface ReadyTrust {
  kind: "ready";
  operatorJWT: string;
  /** Keys that may issue accounts under this operator: its identity and its signing keys. */
  signers: string[];
  /** The system account's public key (the JWT's subject). */
  systemAccount: string;
  systemAccountJWT: string;
  /** Account public key → JWT of the accounts `auth.accountTrustRefs` preloads beside the system account. */
  accounts?: Record<string, string>;
}

export interface RefusedTrust {
  kind: "refused";
  reason: TrustRefusalReason;
  message: string;
}

export type TrustResolution = ReadyTrust | RefusedTrust;

export const refuse = (reason: TrustRefusalReason, message: string): RefusedTrust => ({
  kind: "refused",
  reason,
  message,
});

// Verifying a signature takes ~50 ms in this pure-JS ed25519, and both cluster functions judge
// the same two JWTs on every delivery (step-rollout every 10 s while a rollout moves), so the
// verdicts of the last few pairs are kept. The JWTs are public; keeping them costs nothing.
const verdicts = new Map<string, TrustResolution>();
const KEPT_VERDICTS = 16;

/**
 * Judges the JWTs a NatsOperatorTrust carries. `source` names where they came from, for the
 * messages (for example `NatsOperatorTrust team-a/main`).
 */
export function validateTrust(source: string, operatorJWT: string, systemAccountJWT: string): TrustResolution {
  const key = `${source}\n${operatorJWT}\n${systemAccountJWT}`;
  const kept = verdicts.get(key);
  if (kept) return kept;
  const verdict = judgeJWTs(source, operatorJWT, systemAccountJWT);
  if (verdicts.size >= KEPT_VERDICTS) verdicts.delete(verdicts.keys().next().value ?? "");
  verdicts.set(key, verdict);
  return verdict;
}

function judgeJWTs(source: string, operatorJWT: string, systemAccountJWT: string): TrustResolution {
  const operator = decodeClaims(operatorJWT);
  if (!operator.claims)
    return refuse("TrustInvalid", `${source}: the operator JWT does not decode: ${operator.error ?? "unknown error"}`);
  if (!isOperator(operator.claims) || !operator.claims.sub.startsWith("O"))
    return refuse("TrustInvalid", `${source}: the operator JWT is not an operator JWT`);
  const account = decodeClaims(systemAccountJWT);
  if (!account.claims)
    return refuse(
      "TrustInvalid",
      `${source}: the system account JWT does not decode: ${account.error ?? "unknown error"}`,
    );
  if (!isAccount(account.claims) || !account.claims.sub.startsWith("A"))
    return refuse("TrustInvalid", `${source}: the system account JWT is not an account JWT`);
  const signers = operatorKeys(operator.claims);
  if (!signers.includes(account.claims.iss)) {
    return refuse(
      "TrustInvalid",
      `${source}: the system account JWT is issued by ${account.claims.iss}, which is neither operator ${operator.claims.sub} nor one of its signing keys`,
    );
  }
  const named = operator.claims.nats["system_account"];
  if (typeof named === "string" && named !== "" && named !== account.claims.sub) {
    return refuse(
      "TrustInvalid",
      `${source}: the operator names system account ${named}, but the system account JWT is for ${account.claims.sub}`,
    );
  }
  return {
    kind: "ready",
    operatorJWT: operatorJWT.trim(),
    signers,
    systemAccount: account.claims.sub,
    systemAccountJWT: systemAccountJWT.trim(),
  };
}
