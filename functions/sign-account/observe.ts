// Everything one reconcile of an auth object needs, read and nothing else: the object, the objects
// it refers to, and the seed Secrets, whose seeds go into the keyring (observed holds public keys).
import { KINDS } from "../../shared/api/kinds.ts";
import { DEFAULT_CREDENTIALS_KEY } from "../../shared/api/constants/secret-keys.ts";
import { FINALIZERS } from "../../shared/api/constants/finalizers.ts";
import { hasFinalizer } from "../../shared/kube/finalizers.ts";
import type { Kube } from "../../shared/kube/client.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import { isAdmitted } from "../../shared/kube/reference-grants.ts";
import { parseCreds } from "./user/creds.ts";
import { lostRevocations } from "./account/recovery.ts";
import type { SignedAccountJwt } from "./operator/retiring-keys.ts";
import { Keyring } from "./keys/keyring.ts";
import {
  asRead,
  keyOfSubject,
  namespaceOf,
  type NatsAccount,
  type NatsOperator,
  type NatsAccountTrust,
  type NatsOperatorTrust,
  type NatsSystemAccount,
  type NatsUser,
  type Subject,
} from "./objects.ts";
import { readKeys, type KeysReading, type Secret } from "./keys/read-keys.ts";
import type { DistributionReading, PushOutcome } from "./servers/distribution.ts";
import type { ImportReading } from "./wiring/imports.ts";
import { readImports } from "./wiring/read-imports.ts";
import { offersStepdown } from "./operator/stepdown-imports.ts";
import type { DeletionsReading } from "./operator/deleted-accounts.ts";
import type { ConnectionsReading, KickOutcome } from "./user/deletion.ts";
import {
  newRosterPolls,
  openSystemConnection,
  readConnections,
  readDeletions,
  readDistribution,
  systemConnectionUser,
  type RosterPolls,
  type SystemLink,
} from "./servers/system-connection.ts";

export interface OperatorObserved {
  kind: "NatsOperator";
  object: NatsOperator;
  keys: KeysReading;
  /** The NatsSystemAccount spec.systemAccountRef names, and its keys. */
  systemAccount?: { object: NatsSystemAccount; keys: KeysReading };
  /** Which of its deleted accounts the servers still hold, through the system connection. */
  deletions?: DeletionsReading;
  /** Keys of its accounts offering the jetstream-stepdown services, which its system account imports. */
  stepdownAccounts?: string[];
  /** The JWTs its accounts' statuses hold, to tell whether a retiring signing key still signs one. */
  accountJwts?: SignedAccountJwt[];
  /** The NatsUsers of its system account: the deleted ones and their replaced keys are revoked. */
  systemUsers?: NatsUser[];
  /**
   * What the servers hold of the system account's JWT, read (through the system connection) only
   * while its revocations are to be recovered: its status lost them, or RevocationsUnrecovered.
   */
  systemRecovery?: DistributionReading;
}

export interface SystemAccountObserved {
  kind: "NatsSystemAccount";
  object: NatsSystemAccount;
  keys: KeysReading;
  operator?: NatsOperator;
  /** What the servers hold of the system account's JWT, through the system connection. */
  distribution: DistributionReading;
}

export interface AccountObserved {
  kind: "NatsAccount";
  object: NatsAccount;
  keys: KeysReading;
  /** Whether the operator's namespace admits the account (same namespace, or a grant). */
  admitted: boolean;
  operator?: { object: NatsOperator; keys: KeysReading };
  /** The system account key of the operator, as the operator or its system account records it. */
  systemAccountKey?: string;
  /** The other NatsAccounts under the same operator. */
  siblings: NatsAccount[];
  /** The NatsUsers of the account: the deleted ones and their replaced keys are revoked. */
  users: NatsUser[];
  /** What the servers hold of the account's JWT, through the system connection. */
  distribution: DistributionReading;
  /** What each of spec.imports names, by position (read only for an admitted account). */
  imports: ImportReading[];
}

/** A user's creds Secret as found. */
export type CredsReading =
  | { kind: "none" }
  | { kind: "foreign" }
  | { kind: "unreadable"; resourceVersion?: string }
  | { kind: "held"; publicKey: string; jwt: string; resourceVersion?: string };

export interface UserObserved {
  kind: "NatsUser";
  object: NatsUser;
  admitted: boolean;
  account?: { object: NatsAccount | NatsSystemAccount; keys: KeysReading };
  /**
   * The JWT that revokes the user's given-up keys: its NatsAccount's status.jwt, or the JWT of its
   * NatsSystemAccount in that account's NatsOperator's status.
   */
  accountJwt?: string;
  creds: CredsReading;
  /** The other NatsUsers of the same account. */
  siblings: NatsUser[];
  /** Whether the NatsOperator of the user's NatsAccount exists (read for a user being deleted). */
  operatorExists?: boolean;
  /** A deleted user's live connections, through the system connection (read for a user being deleted). */
  connections?: ConnectionsReading;
  /** Whether the system connection dials with the deleted user's key (read for a user being deleted). */
  systemConnectionUser?: boolean;
}

export interface TrustObserved {
  kind: "NatsOperatorTrust";
  object: NatsOperatorTrust;
  admitted: boolean;
  operator?: NatsOperator;
}

export interface AccountTrustObserved {
  kind: "NatsAccountTrust";
  object: NatsAccountTrust;
  admitted: boolean;
  account?: NatsAccount;
}

export type Observed =
  OperatorObserved | SystemAccountObserved | AccountObserved | UserObserved | TrustObserved | AccountTrustObserved;

const read = async <T extends KubeObject>(kube: Kube, kind: keyof typeof KINDS, namespace: string, name: string) =>
  asRead<T>(await kube.get({ apiVersion: KINDS[kind].apiVersion, kind, namespace, name }));

const admits = (kube: Kube, from: KubeObject, toKind: keyof typeof KINDS, namespace: string, name: string) =>
  isAdmitted(
    kube,
    { group: KINDS[from.kind as keyof typeof KINDS].group, kind: from.kind, namespace: from.metadata.namespace ?? "" },
    { group: KINDS[toKind].group, kind: toKind, namespace, name },
  );

/** Whether an operator's system account JWT may lack revocations the servers hold (A21, A26). */
export const systemRevocationsLost = (operator: NatsOperator): boolean =>
  lostRevocations(operator.status?.systemAccount ?? {}) ||
  operator.status?.conditions?.some((c) => c.type === "RevocationsUnrecovered" && c.status === "True") === true;

export const credsSecretOf = (user: NatsUser): { name: string; key: string } => ({
  name: user.spec.credentials?.secretKeyRef.name ?? `${user.metadata.name}-creds`,
  key: user.spec.credentials?.secretKeyRef.key ?? DEFAULT_CREDENTIALS_KEY,
});

async function observeOperator(kube: Kube, object: NatsOperator, keyring: Keyring): Promise<OperatorObserved> {
  const ref = object.spec.systemAccountRef;
  const systemNamespace = namespaceOf(ref, object);
  const [keys, system, users, accounts] = await Promise.all([
    readKeys(kube, object, keyring),
    read<NatsSystemAccount>(kube, "NatsSystemAccount", systemNamespace, ref.name),
    kube.list<NatsUser>({ apiVersion: KINDS.NatsUser.apiVersion, kind: "NatsUser" }),
    kube.list<NatsAccount>({ apiVersion: KINDS.NatsAccount.apiVersion, kind: "NatsAccount" }),
  ]);
  // Only public keys of the system account are used: its seeds stay with its own reconcile.
  const systemAccount = system ? { object: system, keys: await readKeys(kube, system, new Keyring()) } : undefined;
  const systemUsers = users.filter(
    (u) =>
      u.spec.accountRef.kind === "NatsSystemAccount" &&
      u.spec.accountRef.name === ref.name &&
      namespaceOf(u.spec.accountRef, u) === systemNamespace,
  );
  const own = accounts.filter((a) => sameOperator(a, object.metadata.namespace, object.metadata.name));
  const stepdownAccounts = own.filter(offersStepdown).map((a) => a.status?.publicKey as string);
  const accountJwts = own.flatMap((a) =>
    a.status?.jwt ? [{ account: `${a.metadata.namespace ?? ""}/${a.metadata.name}`, jwt: a.status.jwt }] : [],
  );
  return {
    kind: "NatsOperator",
    object,
    keys,
    ...(systemAccount ? { systemAccount } : {}),
    systemUsers,
    ...(stepdownAccounts.length > 0 ? { stepdownAccounts } : {}),
    ...(accountJwts.length > 0 ? { accountJwts } : {}),
  };
}

async function observeSystemAccount(
  kube: Kube,
  object: NatsSystemAccount,
  keyring: Keyring,
  link: SystemLink,
  lastPush: PushOutcome | undefined,
): Promise<SystemAccountObserved> {
  const ref = object.spec.operatorRef;
  const [keys, operator] = await Promise.all([
    readKeys(kube, object, keyring),
    read<NatsOperator>(kube, "NatsOperator", namespaceOf(ref, object), ref.name),
  ]);
  // Asked only once its operator signed a JWT for it: before that there is nothing to count.
  const signed = operator?.status?.systemAccount?.jwt ? object.status?.publicKey : undefined;
  const distribution: DistributionReading = signed
    ? await readDistribution(link, signed, lastPush)
    : link.kind === "off"
      ? link
      : { kind: "unreachable", message: "not asked: no JWT is signed for it yet" };
  return { kind: "NatsSystemAccount", object, keys, ...(operator ? { operator } : {}), distribution };
}

const sameOperator = (a: NatsAccount, namespace: string, name: string) =>
  a.spec.operatorRef.name === name && namespaceOf(a.spec.operatorRef, a) === namespace;

/**
 * An account its operator's namespace no longer admits: nothing is read unless it recorded a key
 * (it was admitted before), whose JWT then leaves the servers by a delete signed by the operator.
 */
async function observeWithdrawn(
  kube: Kube,
  object: NatsAccount,
  keyring: Keyring,
  link: SystemLink,
  lastDelete: PushOutcome | undefined,
): Promise<AccountObserved> {
  const unread = { kind: "NatsAccount" as const, object, admitted: false, siblings: [], users: [], imports: [] };
  const key = object.status?.publicKey;
  if (!key) return { ...unread, keys: { signing: [] }, distribution: { kind: "off" } };
  const ref = object.spec.operatorRef;
  const operator = await read<NatsOperator>(kube, "NatsOperator", namespaceOf(ref, object), ref.name);
  const distribution = await readDistribution(link, key, undefined, lastDelete);
  if (!operator) return { ...unread, keys: { signing: [] }, distribution };
  const operatorKeys = await readKeys(kube, operator, keyring);
  return { ...unread, keys: { signing: [] }, operator: { object: operator, keys: operatorKeys }, distribution };
}

async function observeAccount(
  kube: Kube,
  object: NatsAccount,
  keyring: Keyring,
  link: SystemLink,
  lastPush: PushOutcome | undefined,
  lastDelete: PushOutcome | undefined,
): Promise<AccountObserved> {
  const ref = object.spec.operatorRef;
  const namespace = namespaceOf(ref, object);
  const admitted = await admits(kube, object, "NatsOperator", namespace, ref.name);
  if (!admitted) return observeWithdrawn(kube, object, keyring, link, lastDelete);
  const [keys, operator, all, allUsers, imports] = await Promise.all([
    readKeys(kube, object, keyring),
    read<NatsOperator>(kube, "NatsOperator", namespace, ref.name),
    kube.list<NatsAccount>({ apiVersion: KINDS.NatsAccount.apiVersion, kind: "NatsAccount" }),
    kube.list<NatsUser>({ apiVersion: KINDS.NatsUser.apiVersion, kind: "NatsUser" }),
    readImports(kube, object, keyring),
  ]);
  // A status that lost its key still has it in the identity seed (or spec.publicKey): the servers
  // are asked for that key's JWT, whose revocations are recovered from before signing again.
  const identity = keys.identity?.state.kind === "ready" ? keys.identity.state.publicKey : object.spec.publicKey;
  const distribution = await readDistribution(link, object.status?.publicKey ?? identity, lastPush, lastDelete);
  const siblings = all.filter((a) => sameOperator(a, namespace, ref.name) && a.metadata.uid !== object.metadata.uid);
  const users = allUsers.filter(
    (u) =>
      u.spec.accountRef.kind === "NatsAccount" &&
      u.spec.accountRef.name === object.metadata.name &&
      namespaceOf(u.spec.accountRef, u) === object.metadata.namespace,
  );
  if (!operator) return { kind: "NatsAccount", object, keys, admitted, siblings, users, distribution, imports };
  const systemRef = operator.spec.systemAccountRef;
  const [operatorKeys, system] = await Promise.all([
    readKeys(kube, operator, keyring),
    read<NatsSystemAccount>(kube, "NatsSystemAccount", namespaceOf(systemRef, operator), systemRef.name),
  ]);
  const systemAccountKey = operator.status?.systemAccount?.publicKey ?? system?.status?.publicKey;
  return {
    kind: "NatsAccount",
    object,
    keys,
    admitted,
    operator: { object: operator, keys: operatorKeys },
    ...(systemAccountKey ? { systemAccountKey } : {}),
    siblings,
    users,
    distribution,
    imports,
  };
}

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
  const operator = known ?? (await read<NatsOperator>(kube, "NatsOperator", namespaceOf(ref, account), ref.name));
  const userKey = user.status?.publicKey;
  const accountKey = account.status?.publicKey;
  const connections =
    userKey && accountKey ? await readConnections(link, accountKey, userKey, lastKick) : { kind: "off" as const };
  const own = userKey !== undefined && (await systemConnectionUser(kube)) === userKey;
  return { operatorExists: operator !== undefined, connections, ...(own ? { systemConnectionUser: true } : {}) };
}

async function observeUser(
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
    read<NatsAccount | NatsSystemAccount>(kube, ref.kind, namespace, ref.name),
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
      ? await read<NatsOperator>(kube, "NatsOperator", namespaceOf(operatorRef, account), operatorRef.name)
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

async function observeTrust(kube: Kube, object: NatsOperatorTrust): Promise<TrustObserved> {
  const ref = object.spec.operatorRef;
  if (!ref) return { kind: "NatsOperatorTrust", object, admitted: true };
  const namespace = namespaceOf(ref, object);
  const admitted = await admits(kube, object, "NatsOperator", namespace, ref.name);
  const operator = admitted ? await read<NatsOperator>(kube, "NatsOperator", namespace, ref.name) : undefined;
  return { kind: "NatsOperatorTrust", object, admitted, ...(operator ? { operator } : {}) };
}

async function observeAccountTrust(kube: Kube, object: NatsAccountTrust): Promise<AccountTrustObserved> {
  const ref = object.spec.accountRef;
  if (!ref) return { kind: "NatsAccountTrust", object, admitted: true };
  const namespace = namespaceOf(ref, object);
  const admitted = await admits(kube, object, "NatsAccount", namespace, ref.name);
  const account = admitted ? await read<NatsAccount>(kube, "NatsAccount", namespace, ref.name) : undefined;
  return { kind: "NatsAccountTrust", object, admitted, ...(account ? { account } : {}) };
}

/** What one read hands to act beside the plain data: the seeds, and the system connection to push on. */
export interface Read {
  observed: Observed;
  keyring: Keyring;
  system?: SystemLink;
}

/**
 * Reads the subject and what it refers to; undefined when the subject is gone. `lastPush` is a push
 * made earlier in the same delivery, so the decision after it knows it was acknowledged; `lastDelete`
 * a delete request likewise. `rosters` holds the STATSZ polls the delivery's reads share.
 */
export async function observe(
  kube: Kube,
  subject: Subject,
  lastPush?: PushOutcome,
  lastDelete?: PushOutcome,
  lastKick?: KickOutcome,
  rosters: RosterPolls = newRosterPolls(),
): Promise<Read | undefined> {
  const object = asRead<KubeObject>(await kube.get(keyOfSubject(subject)));
  if (!object) return undefined;
  const keyring = new Keyring();
  switch (subject.kind) {
    case "NatsOperator": {
      const operator = object as NatsOperator;
      const observed = await observeOperator(kube, operator, keyring);
      const deleted = operator.status?.deletedAccounts ?? [];
      const systemKey = observed.systemAccount?.object.status?.publicKey;
      const recovering = systemKey !== undefined && systemRevocationsLost(operator);
      // The system connection is opened only for an operator with deleted accounts to watch, or
      // whose system account's revocations are to be recovered from the servers.
      if (deleted.length === 0 && !recovering) return { observed, keyring };
      const system = await openSystemConnection(kube, rosters);
      const keys = deleted.map((d) => d.publicKey);
      return {
        observed: {
          ...observed,
          ...(deleted.length > 0 ? { deletions: await readDeletions(system, keys, lastDelete) } : {}),
          ...(recovering ? { systemRecovery: await readDistribution(system, systemKey, undefined) } : {}),
        },
        keyring,
        system,
      };
    }
    case "NatsSystemAccount": {
      const system = await openSystemConnection(kube, rosters);
      const observed = await observeSystemAccount(kube, object as NatsSystemAccount, keyring, system, lastPush);
      return { observed, keyring, system };
    }
    case "NatsAccount": {
      const system = await openSystemConnection(kube, rosters);
      const observed = await observeAccount(kube, object as NatsAccount, keyring, system, lastPush, lastDelete);
      return { observed, keyring, system };
    }
    case "NatsUser": {
      const user = object as NatsUser;
      // The system connection is opened only for a deleted user whose connections are to be closed.
      const draining = user.metadata.deletionTimestamp && hasFinalizer(user, FINALIZERS.userRevoke);
      const system: SystemLink = draining ? await openSystemConnection(kube, rosters) : { kind: "off" };
      const observed = await observeUser(kube, user, keyring, system, lastKick);
      return { observed, keyring, ...(draining ? { system } : {}) };
    }
    case "NatsOperatorTrust":
      return { observed: await observeTrust(kube, object as NatsOperatorTrust), keyring };
    case "NatsAccountTrust":
      return { observed: await observeAccountTrust(kube, object as NatsAccountTrust), keyring };
  }
}
