// What a NatsAccount takes from other accounts (pure): each spec.imports entry resolved against
// the exporter it names, as read by observe-imports.ts, into an import claim of the account JWT,
// an activation token to sign (a private export that lists the importer), and a status.imports
// entry. An import that does not resolve is left out of the JWT and said why; one whose exporter
// has not recorded its key yet holds the whole account back (ExporterPending), since the key is
// what the claim names.
import { type Import, type NatsAccountStatus, GRANT_REASONS } from "../../../shared/api/index.ts";
import { heldActivation, activationRequest } from "./activation.ts";
import type { SignRequest } from "../jwt/claims.ts";
import { SYSTEM_ACCOUNT_EXPORTS } from "../jwt/claims.ts";
import { concreteExports, listsImporter } from "./exports.ts";
import { judgeKeys } from "../keys/key-verdict.ts";
import { namespaceOf, type NatsAccount, type NatsSystemAccount } from "../objects.ts";
import type { KeysReading } from "../keys/read-keys.ts";

export type ImportStatus = NonNullable<NatsAccountStatus["imports"]>[number];

/** What observe found for one import (by position in spec.imports). */
export type ImportReading =
  /** An import by publicKey; `token` is the activation Secret's key, when the import names one. */
  | { kind: "byKey"; token?: { found: true; jwt: string } | { found: false; message: string } }
  /** A reference into another namespace that no NatsReferenceGrant there admits. */
  | { kind: "notPermitted" }
  | { kind: "missing" }
  | { kind: "account"; object: NatsAccount; keys: KeysReading }
  | { kind: "system"; object: NatsSystemAccount };

/** An activation token act signs into the account claims' imports[index].token. */
export interface ActivationStep {
  index: number;
  request: SignRequest;
}

export interface ResolvedImports {
  /** The JWT's imports, in spec order, the unresolved left out. */
  claims: Record<string, unknown>[];
  activations: ActivationStep[];
  statuses: ImportStatus[];
  /** One line per import left out, naming it and why. */
  unresolved: string[];
  /** Exporters that have no public key yet. */
  pending: string[];
}

export interface Importer {
  object: NatsAccount;
  /** The importer's identity key: activation tokens are issued to it. */
  identity: string;
  /** Its NatsOperator, as namespace/name. */
  operator: string;
}

type Resolution =
  | { kind: "claim"; claim: Record<string, unknown>; status: ImportStatus; activation?: SignRequest }
  | { kind: "unresolved"; message: string }
  | { kind: "pending"; exporter: string };

const jwtType = (type: "Stream" | "Service") => (type === "Service" ? "service" : "stream");

/** The options an import carries whatever its exporter: the local subject, share and allowTrace. */
function importClaim(
  spec: Import,
  name: string,
  account: string,
  subject: string,
  type: "Stream" | "Service",
): Record<string, unknown> {
  const local = spec.localSubject && spec.localSubject !== subject ? spec.localSubject : undefined;
  return {
    name,
    subject,
    account,
    type: jwtType(type),
    ...(local ? { local_subject: local } : {}),
    ...(type === "Service" && spec.share ? { share: true } : {}),
    ...(type === "Stream" && spec.allowTrace ? { allow_trace: true } : {}),
  };
}

const statusOf = (
  label: string,
  spec: Import,
  subject: string,
  type: "Stream" | "Service",
  activation?: "Signed" | "Supplied",
): ImportStatus => ({
  export: label,
  subject,
  ...(spec.localSubject ? { localSubject: spec.localSubject } : {}),
  type,
  ...(activation ? { activation } : {}),
});

/** The system account's monitoring export `name`, its subject carrying the importer's key at the account token position. */
function monitoringExport(name: string, importerKey: string) {
  const found = SYSTEM_ACCOUNT_EXPORTS.find((e) => e.name === name);
  if (!found) return undefined;
  const tokens = found.subject.split(".");
  tokens[found.account_token_position - 1] = importerKey;
  return { subject: tokens.join("."), type: found.type === "service" ? ("Service" as const) : ("Stream" as const) };
}

function resolveOne(importer: Importer, spec: Import, reading: ImportReading, previousJwt?: string): Resolution {
  const self = importer.object;
  if (reading.kind === "byKey") {
    const { publicKey, subject, type } = spec;
    if (!publicKey || !subject || !type)
      return { kind: "unresolved", message: "an import by publicKey needs subject and type" };
    if (reading.token && !reading.token.found) return { kind: "unresolved", message: reading.token.message };
    const token = reading.token?.jwt;
    return {
      kind: "claim",
      claim: { ...importClaim(spec, subject, publicKey, subject, type), ...(token ? { token } : {}) },
      status: statusOf(`${publicKey}/${subject}`, spec, subject, type, token ? "Supplied" : undefined),
    };
  }
  const ref = spec.accountRef;
  const exportName = spec.export;
  if (!ref || !exportName) return { kind: "unresolved", message: "names neither accountRef and export nor publicKey" };
  const namespace = namespaceOf(ref, self);
  const exporter = `${ref.kind} ${namespace}/${ref.name}`;
  if (reading.kind === "notPermitted")
    return {
      kind: "unresolved",
      message:
        `no NatsReferenceGrant in namespace ${namespace} admits NatsAccount ${self.metadata.namespace}/` +
        `${self.metadata.name} to ${exporter}`,
    };
  if (reading.kind === "missing") return { kind: "unresolved", message: `${exporter} does not exist` };
  const label =
    namespace === self.metadata.namespace ? `${ref.name}/${exportName}` : `${namespace}/${ref.name}/${exportName}`;

  if (reading.kind === "system") {
    const system = reading.object;
    const systemOperator = `${namespaceOf(system.spec.operatorRef, system)}/${system.spec.operatorRef.name}`;
    if (systemOperator !== importer.operator)
      return {
        kind: "unresolved",
        message: `${exporter} is the system account of another NatsOperator (${systemOperator})`,
      };
    const key = system.status?.publicKey;
    if (!key) return { kind: "pending", exporter };
    const found = monitoringExport(exportName, importer.identity);
    if (!found) return { kind: "unresolved", message: `${exporter} exports no ${exportName}` };
    return {
      kind: "claim",
      claim: importClaim(spec, exportName, key, found.subject, found.type),
      status: statusOf(label, spec, found.subject, found.type),
    };
  }

  const account = reading.object;
  const accountOperator = `${namespaceOf(account.spec.operatorRef, account)}/${account.spec.operatorRef.name}`;
  if (accountOperator !== importer.operator)
    return {
      kind: "unresolved",
      message: `${exporter} is under NatsOperator ${accountOperator}, not ${importer.operator}`,
    };
  const ready = account.status?.conditions?.find((c) => c.type === "Ready");
  if (ready?.status === "False" && ready.reason === GRANT_REASONS.ReferenceNotPermitted)
    return { kind: "unresolved", message: `${exporter} is not admitted to its NatsOperator` };
  const key = account.status?.publicKey;
  if (!key) return { kind: "pending", exporter };
  const found = concreteExports(account.spec.exports).find((e) => e.name === exportName);
  if (!found) return { kind: "unresolved", message: `${exporter} exports no ${exportName}` };
  if (found.access !== "Private")
    return {
      kind: "claim",
      claim: importClaim(spec, exportName, key, found.subject, found.type),
      status: statusOf(label, spec, found.subject, found.type),
    };
  const listed = listsImporter(found, namespace, {
    namespace: self.metadata.namespace,
    name: self.metadata.name,
    publicKey: importer.identity,
  });
  if (!listed)
    return {
      kind: "unresolved",
      message: `${exporter} export ${exportName} is private and does not list NatsAccount ${self.metadata.namespace}/${self.metadata.name}`,
    };
  const keys = judgeKeys(exporter, "account", reading.keys, key, account.spec.publicKey);
  if (keys.kind !== "ready")
    return { kind: "unresolved", message: `${exporter} has no usable signing key for the activation token` };
  const request = activationRequest(exportName, found.subject, found.type, importer.identity, {
    identity: key,
    signer: keys.active,
  });
  const held = heldActivation(previousJwt, request);
  const claim = importClaim(spec, exportName, key, found.subject, found.type);
  return {
    kind: "claim",
    claim: held ? { ...claim, token: held } : claim,
    status: statusOf(label, spec, found.subject, found.type, "Signed"),
    ...(held ? {} : { activation: request }),
  };
}

/** The label an unresolved import is listed under in status.imports. */
function labelOf(self: NatsAccount, spec: Import): string {
  if (spec.publicKey) return `${spec.publicKey}/${spec.subject ?? ""}`;
  const ref = spec.accountRef;
  if (!ref) return spec.export ?? "import";
  const namespace = namespaceOf(ref, self);
  const name = `${ref.name}/${spec.export ?? ""}`;
  return namespace === self.metadata.namespace ? name : `${namespace}/${name}`;
}

/** Every import of the account resolved against what observe read (`readings`, by position). */
export function resolveImports(
  importer: Importer,
  readings: readonly ImportReading[],
  previousJwt: string | undefined,
): ResolvedImports {
  const out: ResolvedImports = { claims: [], activations: [], statuses: [], unresolved: [], pending: [] };
  (importer.object.spec.imports ?? []).forEach((spec, i) => {
    const reading = readings[i] ?? { kind: "missing" };
    const resolved = resolveOne(importer, spec, reading, previousJwt);
    const label = labelOf(importer.object, spec);
    if (resolved.kind === "pending") {
      if (!out.pending.includes(resolved.exporter)) out.pending.push(resolved.exporter);
      out.statuses.push({ export: label });
      return;
    }
    if (resolved.kind === "unresolved") {
      out.unresolved.push(`${label}: ${resolved.message}`);
      out.statuses.push({ export: label });
      return;
    }
    if (resolved.activation) out.activations.push({ index: out.claims.length, request: resolved.activation });
    out.claims.push(resolved.claim);
    out.statuses.push(resolved.status);
  });
  return out;
}
