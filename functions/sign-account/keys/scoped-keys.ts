// Scoped signing keys (pure, A9): an account signing key with a `scope` is listed in the account
// JWT's `signing_keys` as a user scope, whose template the servers impose on every user it signs.
// Such a key signs only the users naming its role, and those users carry no permissions or limits
// of their own: nats-server refuses a user JWT issued by a scoped key that does.
import { parseBytes } from "../../../shared/units/index.ts";
import type { Claims } from "../jwt/claims.ts";
import type { SigningKey, SigningKeyScope } from "./types.ts";

/** A scoped key as the account JWT lists it (nats-io/jwt `UserScope`). */
export interface UserScopeClaim {
  kind: "user_scope";
  key: string;
  role: string;
  template: Record<string, unknown>;
}

type SubjectRules = { allow?: string[]; deny?: string[] };

const rules = (r: SubjectRules | undefined): SubjectRules => ({
  ...(r?.allow && r.allow.length > 0 ? { allow: r.allow } : {}),
  ...(r?.deny && r.deny.length > 0 ? { deny: r.deny } : {}),
});

/** A limit of the scope: -1 (unlimited) when omitted or 0, as account limits read. */
const limit = (value: number | undefined): number => (value === undefined || value === 0 ? -1 : value);

/** The template a scope imposes: its permissions, connection types and limits (nsc's shape). */
export function scopeTemplate(scope: SigningKeyScope): Record<string, unknown> {
  const payload = scope.limits?.payload === undefined ? undefined : parseBytes(scope.limits.payload);
  const types = scope.connectionTypes ?? [];
  return {
    pub: rules(scope.permissions?.publish),
    sub: rules(scope.permissions?.subscribe),
    subs: limit(scope.limits?.subscriptions),
    data: -1,
    payload: payload === undefined || payload === 0n ? -1 : Number(payload),
    ...(types.length > 0 ? { allowed_connection_types: types } : {}),
  };
}

/** The account JWT's `signing_keys`: a plain key as its public key, a scoped one as its user scope. */
export function signingKeyClaims(signing: readonly SigningKey[]): (string | UserScopeClaim)[] {
  return signing.map((s) =>
    s.scope
      ? { kind: "user_scope", key: s.publicKey, role: s.scope.role, template: scopeTemplate(s.scope) }
      : s.publicKey,
  );
}

/** The key that signs a user of `role`: the first non-retiring scoped key of that role. */
export function roleSigner(signing: readonly SigningKey[], role: string): string | undefined {
  return signing.find((s) => !s.retiring && s.scope?.role === role)?.publicKey;
}

/** A user JWT for a scoped key: no permissions, connection types or limits of its own. */
export function roleUserClaims(name: string, userKey: string, account: string): Claims {
  return { name, sub: userKey, nats: { type: "user", version: 2, issuer_account: account } };
}
