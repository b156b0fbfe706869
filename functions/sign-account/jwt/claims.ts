// The claims of each JWT sign-account issues, as plain data (pure). Act signs them: it adds the
// issuer, the issue time and the JWT id, and the expiry from the TTL.
import type { NatsUserSpec } from "../../../shared/api/index.ts";
import { UNLIMITED_ACCOUNT, type JwtLimits } from "../account/limits.ts";
import { presetClaims } from "../user/presets.ts";
import type { UserScopeClaim } from "../keys/scoped-keys.ts";

/** A JWT body before signing: every field but iss, iat, jti and exp. */
export interface Claims {
  name: string;
  sub: string;
  nats: Record<string, unknown>;
}

/** What act signs: the claims, with which key, and for how long (no expiry when 0). */
export interface SignRequest {
  claims: Claims;
  /** Public key of the signing seed. */
  signer: string;
  ttlSeconds: number;
}

/** An operator JWT: self-signed by the identity, naming its system account and every signing key. */
export function operatorClaims(name: string, identity: string, systemAccount: string, signing: string[]): Claims {
  return {
    name,
    sub: identity,
    nats: { type: "operator", version: 2, system_account: systemAccount, signing_keys: signing },
  };
}

/** An account JWT body. */
export function accountClaims(
  name: string,
  identity: string,
  signing: readonly (string | UserScopeClaim)[],
  limits: JwtLimits,
  extra: Record<string, unknown> = {},
): Claims {
  return {
    name,
    sub: identity,
    nats: { type: "account", version: 2, limits, signing_keys: signing, ...extra },
  };
}

/** The monitoring exports every system account offers, as nsc writes them. */
export const SYSTEM_ACCOUNT_EXPORTS = [
  {
    name: "account-monitoring-services",
    subject: "$SYS.REQ.ACCOUNT.*.*",
    type: "service",
    response_type: "Stream",
    account_token_position: 4,
  },
  {
    name: "account-monitoring-streams",
    subject: "$SYS.ACCOUNT.*.>",
    type: "stream",
    account_token_position: 3,
  },
];

/** The system account's JWT: unlimited, no JetStream, the monitoring exports, and any imports (stepdown-imports.ts). */
export function systemAccountClaims(
  name: string,
  identity: string,
  signing: readonly (string | UserScopeClaim)[],
  imports: Record<string, unknown>[] = [],
): Claims {
  return accountClaims(
    name,
    identity,
    signing,
    { ...UNLIMITED_ACCOUNT },
    { exports: SYSTEM_ACCOUNT_EXPORTS, ...(imports.length > 0 ? { imports } : {}) },
  );
}

type SubjectRules = { allow?: string[]; deny?: string[] };

const rules = (r: SubjectRules | undefined): SubjectRules | undefined => {
  if (!r) return undefined;
  const out: SubjectRules = {};
  if (r.allow && r.allow.length > 0) out.allow = r.allow;
  if (r.deny && r.deny.length > 0) out.deny = r.deny;
  return Object.keys(out).length > 0 ? out : undefined;
};

/** A user JWT: issued for its account identity, never expiring, with its permissions or preset. */
export function userClaims(name: string, userKey: string, account: string, spec: NatsUserSpec): Claims {
  const preset = spec.preset ? presetClaims(spec.preset) : undefined;
  const pub = preset ? rules({ allow: preset.publish ?? [] }) : rules(spec.permissions?.publish);
  const sub = preset ? rules({ allow: preset.subscribe ?? [] }) : rules(spec.permissions?.subscribe);
  const types = preset ? preset.connectionTypes : spec.connectionTypes;
  return {
    name,
    sub: userKey,
    nats: {
      type: "user",
      version: 2,
      issuer_account: account,
      subs: -1,
      data: -1,
      payload: -1,
      ...(pub ? { pub } : {}),
      ...(sub ? { sub } : {}),
      ...(types && types.length > 0 ? { allowed_connection_types: types } : {}),
    },
  };
}
