// What a NatsOperator reconcile reads (reads only): its keys, its system account and that
// account's users, its accounts (their JWTs and which offer the stepdown services) and, through
// the system connection, which of its deleted accounts a server still holds and, while its system
// account's revocations are to be recovered, what the servers hold of that account's JWT.
import { AUTH_REASONS } from "../../../shared/api/index.ts";
import type { Kube } from "../../../shared/kube/index.ts";
import { lostRevocations } from "../account/recovery.ts";
import type { ObserveContext, Read } from "../auth-reconciler.ts";
import { Keyring } from "../keys/keyring.ts";
import { readKeys } from "../keys/read-keys.ts";
import { accountsUnder, usersOfAccount } from "../listings.ts";
import { namespaceOf, type NatsOperator, type NatsSystemAccount } from "../objects.ts";
import { readRef } from "../references.ts";
import {
  openSystemConnection,
  readDeletions,
  readDistribution,
  systemConnectionConfigured,
} from "../servers/system-connection.ts";
import { readTrust } from "../servers/trust.ts";
import { offersStepdown } from "./stepdown-imports.ts";
import type { OperatorObserved } from "./types.ts";

/** Whether an operator's system account JWT may lack revocations the servers hold (A21, A26). */
export const systemRevocationsLost = (operator: NatsOperator): boolean =>
  lostRevocations(operator.status?.systemAccount ?? {}) ||
  operator.status?.conditions?.some((c) => c.type === "RevocationsUnrecovered" && c.status === "True") === true;

/**
 * Whether a server holds a system account JWT newer than the one signed (made elsewhere, by
 * another signer): the operator signs again, and takes that JWT's revocations with it (A26).
 */
export const newerSystemJwtHeld = (system: NatsSystemAccount | undefined): boolean =>
  system?.status?.conditions?.some((c) => c.type === "Distributed" && c.reason === AUTH_REASONS.NewerJWTHeld) === true;

async function readOperator(kube: Kube, object: NatsOperator, keyring: Keyring): Promise<OperatorObserved> {
  const ref = object.spec.systemAccountRef;
  const systemNamespace = namespaceOf(ref, object);
  const [keys, system, systemUsers, own] = await Promise.all([
    readKeys(kube, object, keyring),
    readRef<NatsSystemAccount>(kube, "NatsSystemAccount", systemNamespace, ref.name),
    usersOfAccount(kube, { kind: "NatsSystemAccount", namespace: systemNamespace, name: ref.name }),
    accountsUnder(kube, object.metadata.namespace, object.metadata.name),
  ]);
  // Only public keys of the system account are used: its seeds stay with its own reconcile.
  const systemAccount = system ? { object: system, keys: await readKeys(kube, system, new Keyring()) } : undefined;
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

export async function observeOperator(
  operator: NatsOperator,
  { kube, last, rosters }: ObserveContext,
): Promise<Read<OperatorObserved>> {
  const keyring = new Keyring();
  const observed = await readOperator(kube, operator, keyring);
  const deleted = operator.status?.deletedAccounts ?? [];
  const systemKey = observed.systemAccount?.object.status?.publicKey;
  const recovering =
    systemKey !== undefined && (systemRevocationsLost(operator) || newerSystemJwtHeld(observed.systemAccount?.object));
  // The system connection is opened when one is configured, to ask the servers which signing keys
  // they trust (A10), and for an operator with deleted accounts to watch or whose system account's
  // revocations are to be recovered from the servers.
  if (deleted.length === 0 && !recovering && !systemConnectionConfigured()) return { observed, keyring };
  const system = await openSystemConnection(kube, rosters);
  const keys = deleted.map((d) => d.publicKey);
  return {
    observed: {
      ...observed,
      trust: await readTrust(system),
      ...(deleted.length > 0 ? { deletions: await readDeletions(system, keys, last.delete) } : {}),
      ...(recovering ? { systemRecovery: await readDistribution(system, systemKey, undefined) } : {}),
    },
    keyring,
    system,
  };
}
