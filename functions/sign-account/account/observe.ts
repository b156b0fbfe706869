// What a NatsAccount reconcile reads (reads only): whether its operator's namespace admits it, its
// keys, its operator and that operator's keys and system account key, the other accounts of the
// operator that could hold its key first, its users (whose given-up keys it revokes), what each
// import names, and through the system connection what the servers hold of its JWT; the accounts
// and users by field selector (listings.ts), not across the cluster. An account no longer admitted reads only
// what the delete of its JWT needs.
import type { Kube } from "../../../shared/kube/index.ts";
import type { ObserveContext, Read } from "../auth-reconciler.ts";
import { Keyring } from "../keys/keyring.ts";
import { claimsOf, holdingOf, seedKeyOf } from "../keys/key-claims.ts";
import { readHoldings, seedsThatMatter, type SeedsToRead } from "../keys/read-holdings.ts";
import { readKeys, type KeysReading } from "../keys/read-keys.ts";
import { accountsClaiming, usersOfAccount } from "../listings.ts";
import { namespaceOf, subjectOf, type NatsAccount, type NatsOperator, type NatsSystemAccount } from "../objects.ts";
import { admits, readRef } from "../references.ts";
import { openSystemConnection, readDistribution, type SystemLink } from "../servers/system-connection.ts";
import type { PushOutcome } from "../servers/types.ts";
import { readImports } from "../wiring/read-imports.ts";
import type { AccountObserved } from "./types.ts";

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
  const unread = { kind: "NatsAccount" as const, object, admitted: false, others: [], users: [], imports: [] };
  const key = object.status?.publicKey;
  if (!key) return { ...unread, keys: { signing: [] }, distribution: { kind: "off" } };
  const ref = object.spec.operatorRef;
  const operator = await readRef<NatsOperator>(kube, "NatsOperator", namespaceOf(ref, object), ref.name);
  const distribution = await readDistribution(link, key, undefined, lastDelete);
  if (!operator) return { ...unread, keys: { signing: [] }, distribution };
  const operatorKeys = await readKeys(kube, operator, keyring);
  return { ...unread, keys: { signing: [] }, operator: { object: operator, keys: operatorKeys }, distribution };
}

/**
 * The other accounts under the operator whose claim on the identity key to sign (`key`: its seed's,
 * or spec.publicKey) can outrank the account's own (keys/key-claims.ts): the key check decides
 * between them alone, so the rest of the installation is not read. None without a key to check
 * (seeds still to generate, a slot refused): then no key check is made.
 */
async function rivalsFor(
  kube: Kube,
  object: NatsAccount,
  keys: KeysReading,
  key: string | undefined,
  operatorNamespace: string,
  seeds: SeedsToRead,
): Promise<NatsAccount[]> {
  if (!key) return [];
  const mine = claimsOf(holdingOf(object, keys)).find((c) => c.key === key)?.kind ?? "spec";
  const operator = { namespace: operatorNamespace, name: object.spec.operatorRef.name };
  const rivals = await accountsClaiming(kube, operator, key, mine, seeds);
  return rivals.filter((a) => a.metadata.uid !== object.metadata.uid);
}

async function readAccount(
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
  const [keys, operator, users, imports] = await Promise.all([
    readKeys(kube, object, keyring),
    readRef<NatsOperator>(kube, "NatsOperator", namespace, ref.name),
    usersOfAccount(kube, subjectOf("NatsAccount", object)),
    readImports(kube, object, keyring),
  ]);
  // A status that lost its key still has it in the identity seed (or spec.publicKey): the servers
  // are asked for that key's JWT, whose revocations are recovered from before signing again.
  const identity = seedKeyOf(keys) ?? object.spec.publicKey;
  const recorded = object.status?.publicKey;
  const distribution = await readDistribution(link, recorded ?? identity, lastPush, lastDelete);
  // A key other than the one recorded is about to be signed: what the servers hold of it is
  // compared with the claims to sign before it is taken over (adoption.ts).
  const candidate =
    recorded && identity && identity !== recorded ? await readDistribution(link, identity, undefined) : undefined;
  const seeds = seedsThatMatter(object, keys);
  const siblings = await rivalsFor(kube, object, keys, identity, namespace, seeds);
  const seen = { kind: "NatsAccount" as const, object, keys, admitted, users, distribution, imports };
  const withCandidate = candidate ? { ...seen, candidate } : seen;
  if (!operator) return { ...withCandidate, others: await readHoldings(kube, siblings, undefined, undefined, seeds) };
  const systemRef = operator.spec.systemAccountRef;
  const [operatorKeys, system] = await Promise.all([
    readKeys(kube, operator, keyring),
    readRef<NatsSystemAccount>(kube, "NatsSystemAccount", namespaceOf(systemRef, operator), systemRef.name),
  ]);
  return {
    ...withCandidate,
    operator: { object: operator, keys: operatorKeys },
    others: await readHoldings(kube, siblings, system, operator, seeds),
  };
}

export async function observeAccount(
  object: NatsAccount,
  { kube, last, rosters }: ObserveContext,
): Promise<Read<AccountObserved>> {
  const keyring = new Keyring();
  const system = await openSystemConnection(kube, rosters);
  const observed = await readAccount(kube, object, keyring, system, last.push, last.delete);
  return { observed, keyring, system };
}
