// Whether the servers trust the key the operator signs accounts with (pure; A10): each roster
// server's trusted operator of this operator's key must list that signing key, or the server
// refuses every account JWT it signs. Unknown while a server does not answer VARZ or trusts no
// operator JWT of this key (a server configured with the operator's key only lists no signing keys).
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import type { Reason } from "../../../shared/api/index.ts";
import type { TrustReading } from "../servers/trust.ts";
import { readJWT } from "../jwt/compare.ts";
import type { NatsOperator } from "../objects.ts";

const condition = (status: "True" | "False" | "Unknown", reason: Reason, message: string): ConditionUpdate => ({
  type: "SigningKeyUntrusted",
  status,
  reason,
  message,
});

/** The operator's SigningKeyUntrusted condition; undefined without a system connection. */
export function signingKeyTrust(
  reading: TrustReading | undefined,
  operatorKey: string,
  signer: string,
): ConditionUpdate | undefined {
  if (!reading || reading.kind === "off") return undefined;
  if (reading.kind === "unreachable") return condition("Unknown", "TrustUnknown", reading.message);
  const roster = [...new Set([...reading.roster, ...reading.servers.map((s) => s.id)])];
  if (roster.length === 0)
    return condition("Unknown", "TrustUnknown", "no server answered $SYS.REQ.SERVER.PING.STATSZ");
  const silent = roster.filter((id) => !reading.servers.some((s) => s.id === id));
  const unknown = reading.servers.filter((s) => !s.operators.some((o) => o.key === operatorKey));
  const lacking = reading.servers.filter((s) =>
    s.operators.some((o) => o.key === operatorKey && signer !== operatorKey && !o.signing.includes(signer)),
  );
  if (lacking.length > 0)
    return condition(
      "True",
      "UntrustedSigner",
      `signing key ${signer} is not listed by the operator JWT ${lacking.length} of ${roster.length} servers trust: ` +
        `they refuse the account JWTs it signs`,
    );
  if (silent.length > 0 || unknown.length > 0)
    return condition(
      "Unknown",
      "TrustUnknown",
      `${silent.length} of ${roster.length} servers did not answer VARZ, ` +
        `${unknown.length} trust no operator JWT of ${operatorKey}`,
    );
  return condition("False", "SignerTrusted", `all ${roster.length} servers trust signing key ${signer}`);
}

/**
 * An account's (or system account's) Distributed condition, given its operator's: a JWT signed by
 * the signing key the operator reads SigningKeyUntrusted=True for is refused by the servers that
 * do not list it, so the account reads UntrustedSigner (naming the key and how many servers lack
 * it) rather than only ServersBehind or PushRefused. A JWT every server holds is left True.
 */
export function distributedUnderTrust(
  condition: ConditionUpdate,
  jwt: string | undefined,
  operator: NatsOperator | undefined,
): ConditionUpdate {
  if (condition.status === "True" || condition.type !== "Distributed") return condition;
  const untrusted = operator?.status?.conditions?.find(
    (c) => c.type === "SigningKeyUntrusted" && c.status === "True" && c.reason === "UntrustedSigner",
  );
  const issuer = readJWT(jwt)?.iss;
  if (!untrusted || !issuer || !untrusted.message.includes(issuer)) return condition;
  return {
    type: "Distributed",
    status: "False",
    reason: "UntrustedSigner",
    message: `${condition.message}; ${untrusted.message}`,
  };
}
