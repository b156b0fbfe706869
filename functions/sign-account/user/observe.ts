// What a NatsUser reconcile reads (reads only): whether its account's namespace admits it, its creds
// Secret (whose seed goes into the keyring), its account and that account's keys and JWT, the other
// users of the account and, for a user being deleted, whether the operator exists and (through the
// system connection) its live connections.
import { FINALIZERS, KINDS } from "../../../shared/api/index.ts";
import { hasFinalizer, type Kube } from "../../../shared/kube/index.ts";
import type { ObserveContext, Read } from "../auth-reconciler.ts";
import { Keyring } from "../keys/keyring.ts";
import { readKeys, type Secret } from "../keys/read-keys.ts";
import { namespaceOf, type NatsAccount, type NatsOperator, type NatsSystemAccount, type NatsUser } from "../objects.ts";
import { admits, readRef } from "../references.ts";
import {
  openSystemConnection,
  readConnections,
  systemConnectionUser,
  type SystemLink,
} from "../servers/system-connection.ts";
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
  if (!admitted) return { kind: "NatsUser", object, admitted, creds, siblings: [] };
  const [account, users] = await Promise.all([
    readRef<NatsAccount | NatsSystemAccount>(kube, ref.kind, namespace, ref.name),
    kube.list<NatsUser>({ apiVersion: KINDS.NatsUser.apiVersion, kind: "NatsUser" }),
  ]);
  const siblings = users.filter(
    (u) =>
      u.metadata.uid !== object.metadata.uid &&
      u.spec.accountRef.kind === ref.kind &&
      u.spec.accountRef.name === ref.name &&
      namespaceOf(u.spec.accountRef, u) === namespace,
  );
  if (!account) return { kind: "NatsUser", object, admitted, creds, siblings };
  const keys = await readKeys(kube, account, keyring);
  // A system account's JWT is in its operator's status.
  const operatorRef = account.spec.operatorRef;
  const operator =
    account.kind === "NatsSystemAccount"
      ? await readRef<NatsOperator>(kube, "NatsOperator", namespaceOf(operatorRef, account), operatorRef.name)
      : undefined;
  const signedSystem = operator?.status?.systemAccount;
  const accountJwt =
    account.kind === "NatsAccount"
      ? account.status?.jwt
      : signedSystem?.publicKey === account.status?.publicKey
        ? signedSystem?.jwt
        : undefined;
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
  const observed = await readUser(kube, user, keyring, system, last.kick);
  return { observed, keyring, ...(draining ? { system } : {}) };
}
