// A NatsAccount's decision (pure): admission to its operator, its keys, the key's uniqueness under
// that operator, and its JWT signed by the operator's active signing key (never its identity),
// expiring after jwtTTL and renewed at half of it.
import { FINALIZERS, type NatsAccountStatus, AUTH_REASONS } from "../../../shared/api/index.ts";
import { type ConditionUpdate, hasFinalizer } from "../../../shared/kube/index.ts";
import { jwtLimits } from "./limits.ts";
import { decideWithdrawal, notAdmitted, withdrawnCondition } from "./admission.ts";
import { ADOPTION_REFUSALS, adoptionRefusal, foreignJwt } from "./adoption.ts";
import { accountClaims } from "../jwt/claims.ts";
import {
  allImportsResolved,
  notReady,
  ready,
  referencesResolved,
  referencesUnresolved,
  revocationsUnrecovered,
  settle,
  type Refusal,
} from "../conditions.ts";
import type { AccountDecision, SignStep } from "../decision.ts";
import { deletionsPoll } from "../operator/deleted-accounts.ts";
import { distributedUnderTrust } from "../operator/trusted-signer.ts";
import { decideDeletion, decideDistribution, distributionPoll, expiresAt } from "../servers/distribution.ts";
import { exportTokens } from "../wiring/export-tokens.ts";
import { exportsClaim } from "../wiring/exports.ts";
import { resolveImports } from "../wiring/imports.ts";
import { withAccountJwt } from "../jwt/account-jwt-status.ts";
import { judgeKeys } from "../keys/key-verdict.ts";
import { claimsOf, heldBy, holdingOf, keyHolder, type KeyClaim } from "../keys/key-claims.ts";
import { namespaceOf } from "../objects.ts";
import type { AccountObserved } from "./types.ts";
import { renewalTick } from "./renewal.ts";
import { rosterStatus } from "../servers/roster.ts";
import { everDistributed, lostRevocations, recoverFrom } from "./recovery.ts";
import { mergeRevocations, revokedByUsers } from "./revocations.ts";
import { signingKeyClaims } from "../keys/scoped-keys.ts";
import { planJwt } from "../jwt/plan-jwt.ts";
import { jwtTtlSeconds } from "../jwt/ttl.ts";

/** Who else under the operator the account's identity key belongs to (key-claims.ts), if anyone. */
function keyHolderOf(observed: AccountObserved, key: string): KeyClaim | undefined {
  const self = holdingOf(observed.object, observed.keys);
  return keyHolder(self, key, observed.others.flatMap(claimsOf));
}

/**
 * A NatsAccount being deleted: with the delete finalizer, its JWT is deleted from every server of
 * the roster before the finalizer goes; without a system connection, its operator or a JWT, the
 * finalizer goes at once.
 */
function decideAccountDeletion(observed: AccountObserved, now: Date): AccountDecision {
  const account = observed.object;
  const what = `NatsAccount ${account.metadata.namespace}/${account.metadata.name}`;
  const previous = account.status ?? {};
  const base = { kind: "NatsAccount" as const, object: account, sign: [] as SignStep[], generate: [] };
  if (!hasFinalizer(account, FINALIZERS.accountDelete))
    return { ...base, status: previous, events: [], schedules: [], summary: `${what}: being deleted` };
  // An operator listing deleted accounts watches them (a delete sent earlier in this delivery has
  // recorded this one by the time it is confirmed).
  const watched = (observed.operator?.object.status?.deletedAccounts?.length ?? 0) > 0;
  const release = (why: string): AccountDecision => ({
    ...base,
    status: previous,
    events: [],
    finalizer: "remove",
    schedules:
      observed.distribution.kind === "off"
        ? []
        : [
            distributionPoll(account, true),
            ...(observed.operator && watched ? [deletionsPoll(observed.operator.object, true)] : []),
          ],
    summary: `${what}: deleted (${why})`,
  });
  const key = previous.publicKey;
  const operator = observed.operator;
  if (observed.distribution.kind === "off") return release("no system connection");
  if (!key || !previous.jwt) return release("it has no JWT on the servers");
  if (!operator) return release("its operator is gone");
  const ref = account.spec.operatorRef;
  const signer = judgeKeys(
    `NatsOperator ${namespaceOf(ref, account)}/${ref.name}`,
    "operator",
    operator.keys,
    operator.object.status?.publicKey,
    operator.object.status?.publicKey,
  );
  if (signer.kind !== "ready") return release("its operator has no usable signing key");
  const verdict = decideDeletion(observed.distribution, previous.distribution);
  if (verdict.confirmed) return release("no server holds its JWT");
  const recorded = operator.object.status?.deletedAccounts?.some((d) => d.publicKey === key) ?? false;
  const expires = expiresAt(previous.jwt);
  return {
    ...base,
    // Only the Distributed condition and the roster change: Ready is not touched, so observedGeneration stays.
    ...settle(
      previous,
      verdict.distribution ? { ...previous, distribution: verdict.distribution } : previous,
      verdict.condition ? [verdict.condition] : [],
      account.metadata.generation,
      now,
    ),
    ...(verdict.send ? { deleteRequest: { signer: signer.active, accounts: [key] } } : {}),
    ...(verdict.send && !recorded
      ? {
          recordDeleted: {
            operator: { namespace: operator.object.metadata.namespace, name: operator.object.metadata.name },
            publicKey: key,
            ...(expires ? { expires } : {}),
          },
        }
      : {}),
    // The operator watches its deleted accounts from now on, for a server that rejoins holding one.
    schedules: [distributionPoll(account, false), deletionsPoll(operator.object, true)],
    summary: `${what}: ${verdict.condition?.message ?? "deleting"}${verdict.send ? ", sending the delete" : ""}`,
  };
}

export function decideAccount(observed: AccountObserved, now: Date): AccountDecision {
  const account = observed.object;
  if (account.metadata.deletionTimestamp) return decideAccountDeletion(observed, now);
  const what = `NatsAccount ${account.metadata.namespace}/${account.metadata.name}`;
  const previous = account.status ?? {};
  const ref = account.spec.operatorRef;
  const operatorNamespace = namespaceOf(ref, account);
  const operatorName = `NatsOperator ${operatorNamespace}/${ref.name}`;
  const base = { kind: "NatsAccount" as const, object: account, sign: [] as SignStep[] };
  const finish = (
    status: NatsAccountStatus,
    updates: ConditionUpdate[],
    summary: string,
    extra: { sign?: SignStep[]; renewAt?: Date; hold?: boolean; poll?: boolean; signed?: boolean } = {},
  ): AccountDecision => {
    const sign = extra.sign ?? [];
    // Signed: Ready, or signed without the imports that do not resolve.
    const signed = extra.signed ?? updates.some((u) => u.type === "Ready" && u.status === "True");
    // A JWT signed without the revocations the servers may hold is not pushed over theirs.
    const counted = decideDistribution(
      observed.distribution,
      status.jwt,
      sign.length > 0,
      previous.distribution,
      signed && !extra.hold,
    );
    // A JWT signed by a key some server does not trust is refused there (A10).
    const reach = {
      ...counted,
      condition: distributedUnderTrust(counted.condition, status.jwt, observed.operator?.object),
    };
    // Once every server holds the JWT, Ready says so rather than only that it is signed.
    const conditions =
      reach.condition.status === "True"
        ? updates.map((u) =>
            u.type === "Ready" && u.status === "True" ? { ...u, reason: AUTH_REASONS.Distributed } : u,
          )
        : updates;
    const withDistribution = reach.distribution ? { ...status, distribution: reach.distribution } : status;
    // The delete finalizer is added with the first push (or once a server holds the JWT), only
    // while a system connection is configured: the account's JWT then has to leave the servers.
    const onServers = reach.push || Boolean(withDistribution.distribution?.current);
    const addFinalizer =
      observed.distribution.kind === "read" && onServers && !hasFinalizer(account, FINALIZERS.accountDelete);
    return {
      ...base,
      generate: [],
      ...settle(previous, withDistribution, [...conditions, reach.condition], account.metadata.generation, now),
      sign,
      ...(reach.push ? { push: true } : {}),
      ...(addFinalizer ? { finalizer: "add" as const } : {}),
      // Without a system connection there is no poll to keep or end.
      schedules: [
        renewalTick(account, extra.renewAt),
        ...(observed.distribution.kind === "off"
          ? []
          : [distributionPoll(account, (reach.settled || !signed) && !extra.poll)]),
      ],
      summary: `${what}: ${summary}${reach.push ? ", pushing" : ""}; ${reach.condition.message}`,
    };
  };
  const refuse = (status: NatsAccountStatus, refusal: Refusal, unresolved?: ConditionUpdate) =>
    finish(status, [notReady(refusal), unresolved ?? referencesResolved()], `${refusal.reason}: ${refusal.message}`);

  if (!observed.admitted) {
    // Admitted before (a key recorded): its JWT leaves the servers.
    if (previous.publicKey || withdrawnCondition(previous)) return decideWithdrawal(observed, now);
    // Refused before its key is recorded: no publicKey, no JWT.
    const { publicKey: _key, jwt: _jwt, jwtHash: _hash, jwtExpires: _expires, ...unkeyed } = previous;
    const { message } = notAdmitted(observed);
    return refuse(unkeyed, { reason: "ReferenceNotPermitted", message }, referencesUnresolved("NoGrant", message));
  }
  const offlineKey = account.spec.publicKey;
  const verdict =
    offlineKey !== undefined && !offlineKey.startsWith("A")
      ? ({
          kind: "refused",
          reason: "InvalidKeys",
          message: `${what}: spec.publicKey ${offlineKey} is not an account key`,
        } as const)
      : judgeKeys(what, "account", observed.keys, previous.publicKey, offlineKey);
  if (verdict.kind === "generate")
    return {
      ...base,
      generate: verdict.seeds,
      status: previous,
      events: [],
      schedules: [],
      summary: `${what}: generating ${verdict.seeds.map((s) => s.secret).join(", ")}`,
    };
  if (verdict.kind === "refused") return refuse(previous, verdict);

  const holder = keyHolderOf(observed, verdict.identity);
  if (holder) {
    // A key it holds in status stays, with its JWT, on the servers as it was: only the new one is refused.
    const { publicKey: _key, jwt: _jwt, jwtHash: _hash, jwtExpires: _expires, ...unkeyed } = previous;
    return refuse(previous.publicKey === verdict.identity ? unkeyed : previous, {
      reason: "PublicKeyInUse",
      message: `account key ${verdict.identity} is already held by ${heldBy(holder)}; ${what} is not signed with it`,
    });
  }
  const keyed: NatsAccountStatus = { ...previous, publicKey: verdict.identity };
  const operator = observed.operator;
  if (!operator) {
    const message = `${operatorName} does not exist`;
    return refuse(keyed, { reason: "ReferenceNotFound", message }, referencesUnresolved("ReferenceNotFound", message));
  }
  const signer = judgeKeys(
    operatorName,
    "operator",
    operator.keys,
    operator.object.status?.publicKey,
    operator.object.status?.publicKey,
  );
  if (signer.kind !== "ready")
    return refuse(keyed, { reason: "Pending", message: `waiting for ${operatorName} to have a usable signing key` });
  const ttl = jwtTtlSeconds(account.spec.jwtTTL);
  if (ttl === undefined)
    return refuse(keyed, { reason: "InvalidJWT", message: `${what}: jwtTTL ${account.spec.jwtTTL} is not a duration` });
  const limits = jwtLimits(account.spec.limits);
  if (!limits.ok) return refuse(keyed, { reason: "InvalidJWT", message: `${what}: ${limits.message}` });
  const imports = resolveImports(
    { object: account, identity: verdict.identity, operator: `${operatorNamespace}/${ref.name}` },
    observed.imports,
    previous.jwt,
  );
  if (imports.pending.length > 0) {
    // The key is recorded first, so two accounts importing from each other both get theirs.
    const message = `waiting for ${imports.pending.join(", ")} to record its public key; ${what} is not signed`;
    return refuse(
      { ...keyed, imports: imports.statuses },
      { reason: "ExporterPending", message },
      referencesUnresolved("ExporterPending", message),
    );
  }

  // A status that lost its JWT and revocations (or signed without the servers' last time) asks
  // the servers for theirs first.
  const unrecovered = previous.conditions?.some((c) => c.type === "RevocationsUnrecovered" && c.status === "True");
  // A takeover refused asks again for the servers' JWT, which it is compared with.
  const adopting = previous.conditions?.some((c) => c.type === "Ready" && ADOPTION_REFUSALS.has(c.reason));
  // A new identity (spec.publicKey or seed changed) is taken over like a first one: its JWT on the
  // servers, made elsewhere, is recovered from and compared with the claims to sign.
  const keyChange = previous.publicKey !== undefined && previous.publicKey !== verdict.identity;
  const recovery =
    observed.distribution.kind !== "off" && (lostRevocations(previous) || unrecovered || adopting || keyChange)
      ? recoverFrom(
          keyChange ? (observed.candidate ?? observed.distribution) : observed.distribution,
          previous.distribution,
          verdict.identity,
        )
      : undefined;
  if (recovery?.kind === "unanswered" && everDistributed(previous.distribution) && !keyChange) {
    const message =
      `${what} reached the servers before and its status lost its JWT and revocations; it is not signed ` +
      `until every server answers which JWT it holds: ${recovery.message}`;
    // Kept polling: the servers are asked again until every one answers, and the roster is kept,
    // so a server that stays silent leaves it at its third missed poll and recovery goes on.
    const roster = recovery.roster;
    const { polledAt: _polledAt, ...counted } = previous.distribution ?? {};
    const held = finish(
      roster
        ? { ...keyed, distribution: { ...counted, servers: roster.servers.length, ...rosterStatus(roster) } }
        : keyed,
      [
        notReady({ reason: "RecoveringRevocations", message }),
        referencesResolved(),
        revocationsUnrecovered("True", "ServersUnanswered", recovery.message),
      ],
      `RecoveringRevocations: ${message}`,
      { poll: true },
    );
    const jwtHeld = { type: "Warning" as const, reason: "JWTHeld", note: message };
    return { ...held, events: held.events.flatMap((e) => (e.reason === "RecoveringRevocations" ? [e, jwtHeld] : [e])) };
  }
  const recoveryCondition =
    recovery?.kind === "recovered"
      ? revocationsUnrecovered(
          "False",
          "Recovered",
          recovery.jwt
            ? `revocations recovered from the JWT the servers hold (${recovery.servers} servers answered)`
            : `no server holds a JWT for this account (${recovery.servers} servers answered): nothing to recover`,
        )
      : recovery
        ? revocationsUnrecovered(
            "True",
            "ServersUnanswered",
            `signed without the revocations the servers may hold, and not pushed until every server answers: ${recovery.message}`,
          )
        : undefined;
  const signingKeys = verdict.signing.map((s) => s.publicKey);
  // Signed from the union of status.revocations and the JWT being replaced, so losing either loses
  // none; and of the servers' JWT, recovered, or issued elsewhere since this account's (A26).
  const signed = (recoveredJwt: string | undefined) => {
    const merged = mergeRevocations({
      recorded: previous.revocations,
      previousJwt: previous.jwt,
      ...(recoveredJwt ? { recoveredJwt } : {}),
      revokedNow: revokedByUsers(observed.users),
      signing: signingKeys,
      identity: verdict.identity,
    });
    const jwt = planJwt(
      previous.jwt,
      {
        claims: accountClaims(
          account.metadata.name,
          verdict.identity,
          signingKeyClaims(verdict.signing),
          limits.limits,
          {
            ...exportsClaim(account.spec.exports),
            ...(imports.claims.length > 0 ? { imports: imports.claims } : {}),
            ...(merged.claim ? { revocations: merged.claim } : {}),
          },
        ),
        signer: signer.active,
        ttlSeconds: ttl,
      },
      "jwt",
      now,
    );
    return { revocations: merged.revocations, plan: jwt };
  };
  // The first JWT signed from spec replaces one made elsewhere only if it drops none of its claims (A46).
  // Every signing is judged against a JWT made elsewhere: at the first signing of an identity (a
  // new account, or a new key) the one the servers hold, afterwards one issued since this account's.
  const firstSigning = keyChange || (!previous.jwt && !everDistributed(previous.distribution));
  const recovered = recovery?.kind === "recovered" ? recovery.jwt : undefined;
  let { revocations, plan } = signed(recovered);
  // A JWT issued elsewhere since this account's (another signer took it over, nsc pushed one) is
  // taken back only with its revocations: the users it revoked stay revoked (A26). Left alone
  // until this account is signed again, as a newer JWT held is not pushed over.
  const issuedSince =
    !firstSigning && plan.step && previous.jwt
      ? foreignJwt(observed.distribution, verdict.identity, previous.jwt)
      : undefined;
  if (issuedSince && !recovered) ({ revocations, plan } = signed(issuedSince));
  const { revocations: _revocations, ...unrevoked } = keyed;
  const revoking: NatsAccountStatus = revocations.length > 0 ? { ...unrevoked, revocations } : unrevoked;
  const heldElsewhere = firstSigning ? recovered : issuedSince;
  const takeover = heldElsewhere
    ? adoptionRefusal(what, account.spec.adoption?.droppedClaims, heldElsewhere, plan.step?.request.claims.nats ?? {})
    : undefined;
  // A new key refused leaves the one recorded, and its JWT, as they were.
  if (takeover) return refuse(keyChange ? previous : revoking, takeover);
  const tokens = exportTokens(account, { identity: verdict.identity, signer: verdict.active }, previous.exports);
  const { imports: _imports, exports: _exports, ...unwired } = revoking;
  const importing: NatsAccountStatus = {
    ...unwired,
    ...(imports.statuses.length > 0 ? { imports: imports.statuses } : {}),
    ...(tokens.statuses.length > 0 ? { exports: tokens.statuses } : {}),
  };
  const status: NatsAccountStatus = plan.keep ? withAccountJwt(importing, plan.keep) : importing;
  const signedBy = `signed by ${operatorName} with signing key ${signer.active}`;
  // An import that does not resolve is left out, and an importer key no token can be signed for
  // gets none: the account is signed and pushed all the same, but not Ready.
  const unresolved =
    imports.unresolved.length > 0
      ? `${signedBy} without ${imports.unresolved.length} of ${imports.statuses.length} imports: ${imports.unresolved.join("; ")}`
      : undefined;
  const unsigned =
    tokens.unsigned.length > 0 ? `${signedBy}; no activation token for ${tokens.unsigned.join("; ")}` : undefined;
  const readiness = unresolved
    ? notReady({ reason: "ImportsUnresolved", message: unresolved })
    : unsigned
      ? notReady({ reason: "ActivationsUnsigned", message: unsigned })
      : ready(signedBy);
  const step =
    plan.step && imports.activations.length > 0 ? { ...plan.step, activations: imports.activations } : plan.step;
  const decision = finish(
    status,
    [
      readiness,
      unresolved
        ? referencesUnresolved("ImportsUnresolved", unresolved)
        : imports.statuses.length > 0
          ? allImportsResolved()
          : referencesResolved(),
      ...(recoveryCondition ? [recoveryCondition] : []),
    ],
    plan.step ? `signing (${plan.why ?? "new"})` : "signed, unchanged",
    {
      ...(step ? { sign: [step] } : {}),
      ...(plan.renewAt ? { renewAt: plan.renewAt } : {}),
      ...(recovery?.kind === "unanswered" ? { hold: true } : {}),
      ...(unresolved || unsigned ? { signed: true } : {}),
    },
  );
  // A key re-admitted after its JWT was deleted from the servers is taken off the operator's list first.
  const relisted = operator.object.status?.deletedAccounts?.some((d) => d.publicKey === verdict.identity) ?? false;
  return {
    ...decision,
    ...(tokens.sign.length > 0 ? { exportTokens: tokens.sign } : {}),
    ...(relisted
      ? {
          forgetDeleted: {
            operator: { namespace: operator.object.metadata.namespace, name: operator.object.metadata.name },
            publicKey: verdict.identity,
          },
        }
      : {}),
  };
}
