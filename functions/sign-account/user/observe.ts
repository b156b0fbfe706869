// What a NatsUser reconcile reads (reads only): whether its account's namespace admits it, its creds
// Secret (whose seed goes into the keyring), its account and that account's keys and JWT, the other
// users of the account that record or name its key (for a key named in spec only) and, for a user being deleted, whether the operator exists and (through the
// system connection) its live connections.
import { FINALIZERS } from "../../../shared/api/index.ts";
import { hasFinalizer, type Kube } from "../../../shared/kube/index.ts";
import type { ObserveContext, Read } from "../auth-reconciler.ts";
import { Keyring } from "../keys/keyring.ts";
import { readKeys, type Secret } from "../keys/read-keys.ts";
import { namespaceOf, type NatsAccount, type NatsOperator, type NatsSystemAccount, type NatsUser } from "../objects.ts";
import { admits, readRef } from "../references.ts";
import {
  openSystemConnection,
  readConnections,
  systemConnectionConfigured,
  systemConnectionUser,
  type SystemLink,
} from "../servers/system-connection.ts";
import { usersClaiming } from "../listings.ts";
import { credsSecretOf, parseCreds } from "./creds.ts";
import type { CredsReading, KickOutcome, UserObserved } from "./types.ts";

async function readCreds(kube: Kube, user: NatsUser, keyring: Keyring): Promise<CredsReading> {
  const where = credsSecretOf(user);
  const secret = await kube.get<Secret>({
    apiVersion: "v1",
    kind: "Secret",
    namespace: user.metadata.namespace,
    name: where.name,
  });
  if (!secret) return { kind: "none" };
  const owned = secret.metadata.ownerReferences?.some((o) => o.controller === true && o.uid === user.metadata.uid);
  if (!owned) return { kind: "foreign" };
  const version = secret.metadata.resourceVersion ? { resourceVersion: secret.metadata.resourceVersion } : {};
  const data = secret.data?.[where.key];
  const parsed = data ? parseCreds(Buffer.from(data, "base64").toString("utf8")) : undefined;
  const seed = parsed ? keyring.add(parsed.seed, "U") : undefined;
  if (!parsed || !seed?.ok) return { kind: "unreadable", ...version };
  return { kind: "held", publicKey: seed.publicKey, jwt: parsed.jwt, ...version };
}

/** What a deleted user's drain reads besides the user: whether the account's operator exists, and its connections. */
async function observeDrain(
  kube: Kube,
  account: NatsAccount | NatsSystemAccount,
  user: NatsUser,
  link: SystemLink,
  lastKick: KickOutcome | undefined,
  known: NatsOperator | undefined,
): Promise<Pick<UserObserved, "operatorExists" | "connections" | "systemConnectionUser">> {
  const ref = account.spec.operatorRef;
  const operator = known ?? (await readRef<NatsOperator>(kube, "NatsOperator", namespaceOf(ref, account), ref.name));
  const userKey = user.status?.publicKey;
  const accountKey = account.status?.publicKey;
  const connections =
    userKey && accountKey ? await readConnections(link, accountKey, userKey, lastKick) : { kind: "off" as const };
  const own = userKey !== undefined && (await systemConnectionUser(kube)) === userKey;
  return { operatorExists: operator !== undefined, connections, ...(own ? { systemConnectionUser: true } : {}) };
}

/** The JWT that revokes a user's keys: its NatsAccount's, or its NatsSystemAccount's in the operator's status. */
function jwtOf(account: NatsAccount | NatsSystemAccount, operator: NatsOperator | undefined): string | undefined {
  if (account.kind === "NatsAccount") return account.status?.jwt;
  const signed = operator?.status?.systemAccount;
  return signed?.publicKey === account.status?.publicKey ? signed?.jwt : undefined;
}

/** The JWT of a user's account (and, for a system account, its operator), read on their own. */
async function readAccountJwt(kube: Kube, user: NatsUser): Promise<string | undefined> {
  const ref = user.spec.accountRef;
  const account = await readRef<NatsAccount | NatsSystemAccount>(kube, ref.kind, namespaceOf(ref, user), ref.name);
  if (!account) return undefined;
  const operatorRef = account.spec.operatorRef;
  const operator =
    account.kind === "NatsSystemAccount"
      ? await readRef<NatsOperator>(kube, "NatsOperator", namespaceOf(operatorRef, account), operatorRef.name)
      : undefined;
  return jwtOf(account, operator);
}

async function readUser(
  kube: Kube,
  object: NatsUser,
  keyring: Keyring,
  link: SystemLink,
  lastKick: KickOutcome | undefined,
): Promise<UserObserved> {
  const ref = object.spec.accountRef;
  const namespace = namespaceOf(ref, object);
  const admitted = await admits(kube, object, ref.kind, namespace, ref.name);
  const creds = object.spec.publicKey ? { kind: "none" as const } : await readCreds(kube, object, keyring);
  if (!admitted) {
    // Refused, it gives up the key it held: the account JWT that revokes it is read to see that done.
    const giving = Boolean(object.status?.publicKey) || (object.status?.replacedKeys?.length ?? 0) > 0;
    const accountJwt = giving ? await readAccountJwt(kube, object) : undefined;
    return { kind: "NatsUser", object, admitted, creds, siblings: [], ...(accountJwt ? { accountJwt } : {}) };
  }
  // The other users are read only for the key check of a key named in spec.publicKey (decide.ts):
  // a generated key is random, and a user naming it is refused by its own check. Only the users of
  // the account that record or name that key can hold it (listings.ts).
  const of = { kind: ref.kind, namespace, name: ref.name };
  const [account, siblings] = await Promise.all([
    readRef<NatsAccount | NatsSystemAccount>(kube, ref.kind, namespace, ref.name),
    object.spec.publicKey
      ? usersClaiming(kube, of, object.spec.publicKey).then((users) =>
          users.filter((u) => u.metadata.uid !== object.metadata.uid),
        )
      : Promise.resolve([]),
  ]);
  if (!account) return { kind: "NatsUser", object, admitted, creds, siblings };
  const keys = await readKeys(kube, account, keyring);
  // A system account's JWT is in its operator's status.
  const operatorRef = account.spec.operatorRef;
  const operator =
    account.kind === "NatsSystemAccount"
      ? await readRef<NatsOperator>(kube, "NatsOperator", namespaceOf(operatorRef, account), operatorRef.name)
      : undefined;
  const accountJwt = jwtOf(account, operator);
  const draining =
    object.metadata.deletionTimestamp && hasFinalizer(object, FINALIZERS.userRevoke)
      ? await observeDrain(kube, account, object, link, lastKick, operator)
      : {};
  return {
    kind: "NatsUser",
    object,
    admitted,
    account: { object: account, keys },
    ...(accountJwt ? { accountJwt } : {}),
    creds,
    siblings,
    ...draining,
  };
}

export async function observeUser(
  user: NatsUser,
  { kube, last, rosters }: ObserveContext,
): Promise<Read<UserObserved>> {
  const keyring = new Keyring();
  // The system connection is opened only for a deleted user whose connections are to be closed.
  const draining = user.metadata.deletionTimestamp && hasFinalizer(user, FINALIZERS.userRevoke);
  const system: SystemLink = draining ? await openSystemConnection(kube, rosters) : { kind: "off" };
  const read = await readUser(kube, user, keyring, system, last.kick);
  const observed = systemConnectionConfigured() ? { ...read, systemConnection: true } : read;
  return { observed, keyring, ...(draining ? { system } : {}) };
}
