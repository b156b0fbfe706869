// What a NatsSystemAccount reconcile reads (reads only): its keys, its operator (which signs its
// JWT), the accounts of the operator that could hold its key first and, through the system
// connection, what the servers hold of that JWT.
import type { ObserveContext, Read } from "../auth-reconciler.ts";
import { Keyring } from "../keys/keyring.ts";
import { readKeys } from "../keys/read-keys.ts";
import { claimsOf, holdingOf, seedKeyOf } from "../keys/key-claims.ts";
import { readHoldings, seedsThatMatter } from "../keys/read-holdings.ts";
import { accountsClaiming } from "../listings.ts";
import { namespaceOf, type NatsOperator, type NatsSystemAccount } from "../objects.ts";
import { readRef } from "../references.ts";
import { openSystemConnection, readDistribution } from "../servers/system-connection.ts";
import type { DistributionReading } from "../servers/types.ts";
import type { SystemAccountObserved } from "./types.ts";

export async function observeSystemAccount(
  object: NatsSystemAccount,
  { kube, last, rosters }: ObserveContext,
): Promise<Read<SystemAccountObserved>> {
  const keyring = new Keyring();
  const link = await openSystemConnection(kube, rosters);
  const ref = object.spec.operatorRef;
  const operatorNamespace = namespaceOf(ref, object);
  const [keys, operator] = await Promise.all([
    readKeys(kube, object, keyring),
    readRef<NatsOperator>(kube, "NatsOperator", operatorNamespace, ref.name),
  ]);
  // Only the accounts whose claim on its key can outrank its own are read (listings.ts).
  const key = seedKeyOf(keys) ?? object.spec.publicKey;
  const seeds = seedsThatMatter(object, keys);
  const mine = claimsOf(holdingOf(object, keys)).find((c) => c.key === key)?.kind ?? "spec";
  const rivals = key
    ? await accountsClaiming(kube, { namespace: operatorNamespace, name: ref.name }, key, mine, seeds)
    : [];
  const others = await readHoldings(kube, rivals, undefined, undefined, seeds);
  // Asked only once its operator signed a JWT for it: before that there is nothing to count.
  const signed = operator?.status?.systemAccount?.jwt ? object.status?.publicKey : undefined;
  const distribution: DistributionReading = signed
    ? await readDistribution(link, signed, last.push)
    : link.kind === "off"
      ? link
      : { kind: "unreachable", message: "not asked: no JWT is signed for it yet" };
  const observed: SystemAccountObserved = {
    kind: "NatsSystemAccount",
    object,
    keys,
    ...(operator ? { operator } : {}),
    others,
    distribution,
  };
  return { observed, keyring, system: link };
}
