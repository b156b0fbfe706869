// Reading what a NatsAccount's imports name (observe): the exporter of each, admitted across
// namespaces only by a NatsReferenceGrant there, with its seeds in the keyring (its signing key
// signs the activation token of a private export), or the activation token Secret of an import
// by publicKey.
import { KINDS } from "../../../shared/api/index.ts";
import { isAdmitted, type Kube } from "../../../shared/kube/index.ts";
import type { ImportReading } from "./imports.ts";
import type { Keyring } from "../keys/keyring.ts";
import { asRead, namespaceOf, type NatsAccount, type NatsSystemAccount } from "../objects.ts";
import { readKeys, type Secret } from "../keys/read-keys.ts";

type ImportSpec = NonNullable<NatsAccount["spec"]["imports"]>[number];

async function readToken(
  kube: Kube,
  account: NatsAccount,
  spec: ImportSpec,
): Promise<NonNullable<Extract<ImportReading, { kind: "byKey" }>["token"]> | undefined> {
  const ref = spec.activation?.secretKeyRef;
  if (!ref) return undefined;
  const secret = await kube.get<Secret>({
    apiVersion: "v1",
    kind: "Secret",
    namespace: account.metadata.namespace,
    name: ref.name,
  });
  const data = secret?.data?.[ref.key];
  if (!data) return { found: false, message: `Secret ${ref.name} has no key ${ref.key} with an activation token` };
  return { found: true, jwt: Buffer.from(data, "base64").toString("utf8").trim() };
}

async function readOne(kube: Kube, account: NatsAccount, spec: ImportSpec, keyring: Keyring): Promise<ImportReading> {
  if (!spec.accountRef) {
    const token = await readToken(kube, account, spec);
    return { kind: "byKey", ...(token ? { token } : {}) };
  }
  const ref = spec.accountRef;
  const namespace = namespaceOf(ref, account);
  const admitted = await isAdmitted(
    kube,
    { group: KINDS.NatsAccount.group, kind: "NatsAccount", namespace: account.metadata.namespace },
    { group: KINDS[ref.kind].group, kind: ref.kind, namespace, name: ref.name },
  );
  if (!admitted) return { kind: "notPermitted" };
  const object = asRead<NatsAccount | NatsSystemAccount>(
    await kube.get({ apiVersion: KINDS[ref.kind].apiVersion, kind: ref.kind, namespace, name: ref.name }),
  );
  if (!object) return { kind: "missing" };
  if (object.kind === "NatsSystemAccount") return { kind: "system", object: object as NatsSystemAccount };
  const exporter = object as NatsAccount;
  // Only a private export needs the exporter's seeds (to sign the activation token).
  const exported = exporter.spec.exports?.find((e) => e.name === spec.export);
  const keys = exported?.access === "Private" ? await readKeys(kube, exporter, keyring) : { signing: [] };
  return { kind: "account", object: exporter, keys };
}

/** What each of the account's imports names, by position. */
export function readImports(kube: Kube, account: NatsAccount, keyring: Keyring): Promise<ImportReading[]> {
  return Promise.all((account.spec.imports ?? []).map((spec) => readOne(kube, account, spec, keyring)));
}
