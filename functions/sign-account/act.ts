// Carrying out a decision: seed Secrets created (and then nothing else: the object is observed
// again with its keys), JWTs signed, the whole status written guarded by the resourceVersion read
// (the claim), then the creds Secret and the Events. Of concurrent deliveries one gets past the
// claim; the others answer conflict. A creds Secret made for the first time is the claim itself.
import { createAccount, createOperator, createUser, encodeGeneric, type KeyPair } from "@nats-io/jwt";
import {
  CREDS_DIGEST_ANNOTATION,
  FIELD_MANAGERS,
  FINALIZERS,
  GENERATED_FOR_ANNOTATION,
  KINDS,
} from "../../shared/api/index.ts";
import {
  addFinalizer,
  controllerReference,
  type EventRecorder,
  guarded,
  type Kube,
  type KubeObject,
  removeFinalizer,
  writeStatus,
} from "../../shared/kube/index.ts";
import { credsDigest, formatCreds } from "./user/creds.ts";
import type { NatsConnection } from "@nats-io/transport-node";
import type { CredsWrite, Decision, DeletedAccountRecord, Kick, SignStep } from "./decision.ts";
import type { KickOutcome } from "./user/types.ts";
import { jwtHash } from "./jwt/hash.ts";
import { accountJwtFields } from "./jwt/account-jwt-status.ts";
import type { ExportStatus } from "./wiring/export-tokens.ts";
import type { SeedToGenerate } from "./keys/key-verdict.ts";
import type { Keyring } from "./keys/keyring.ts";
import { SEED_KEY, WATCHED_SECRET_LABELS, generatedFor } from "./keys/seed-secrets.ts";
import { signJwt } from "./jwt/sign-jwt.ts";
import type { PushOutcome } from "./servers/types.ts";
import { deleteClaims, kickConnections, pushJwt, readRoster, type SystemLink } from "./servers/system-connection.ts";
import type { NatsOperator } from "./objects.ts";
import type { InputsRecord } from "../../shared/runtime/index.ts";

export const FIELD_MANAGER = FIELD_MANAGERS.signAccount;

export type PassResult =
  /**
   * Done: `left`, the object as this act's writes left it (stored by the API server), when it
   * wrote nothing after them that may have moved it; `recorded`, its status write carried the
   * runtime's inputs record.
   */
  | { kind: "done"; left?: KubeObject; recorded?: boolean }
  /** Seeds were generated: observe again to sign with them. */
  | { kind: "generated" }
  /** The JWT was pushed: observe again to see which servers hold it. */
  | { kind: "pushed"; outcome: PushOutcome }
  /** A delete request was sent: observe again to see which servers still hold the JWT. */
  | { kind: "deleted"; outcome: PushOutcome }
  /** A deleted user's connections were kicked: observe again to see that none is left. */
  | { kind: "kicked"; outcome: KickOutcome }
  | { kind: "conflict" };

/** Merges a deleted account into its operator's status.deletedAccounts, guarded; false when it lost three times. */
async function recordDeleted(kube: Kube, record: DeletedAccountRecord): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const operator = await kube.get<NatsOperator>({
      apiVersion: KINDS.NatsOperator.apiVersion,
      kind: "NatsOperator",
      ...record.operator,
    });
    if (!operator) return true;
    const listed = operator.status?.deletedAccounts ?? [];
    if (listed.some((d) => d.publicKey === record.publicKey)) return true;
    const entry = { publicKey: record.publicKey, ...(record.expires ? { expires: record.expires } : {}) };
    const status = { ...operator.status, deletedAccounts: [...listed, entry] };
    const written = await writeStatus(kube, operator, status, FIELD_MANAGER, { whole: true });
    if (written.kind !== "conflict") return true;
  }
  return false;
}

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** Creates one generated seed Secret; a Secret made meanwhile by another delivery is a conflict. */
async function generateSeed(kube: Kube, namespace: string, owner: string, seed: SeedToGenerate) {
  const pair = seed.role === "operator" ? createOperator() : createAccount();
  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: {
      name: seed.secret,
      namespace,
      labels: { ...WATCHED_SECRET_LABELS },
      // No owner reference: the keys outlive the object, so applying it again takes the same keys.
      annotations: { [GENERATED_FOR_ANNOTATION]: generatedFor(seed.role, owner) },
    },
    data: { [SEED_KEY]: base64(new TextDecoder().decode(pair.getSeed())) },
  };
  return guarded(() => kube.create(secret as KubeObject));
}

/** The user's key pair for a creds write: the one its Secret holds, or a new one. */
function userPair(keyring: Keyring, creds: CredsWrite): KeyPair {
  if (creds.userKey.kind === "held") return keyring.pair(creds.userKey.publicKey);
  const pair = createUser();
  keyring.keep(pair);
  return pair;
}

/** The creds Secret a user owns, holding `data` and its digest; at `resourceVersion` when it replaces one read. */
function credsSecret(
  decision: Decision,
  name: string,
  resourceVersion: string | undefined,
  data: Record<string, string>,
): KubeObject {
  const owner = decision.object;
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: {
      name,
      namespace: owner.metadata.namespace,
      labels: { ...WATCHED_SECRET_LABELS },
      // Its own event then reads as the echo of this write (related.ts) and reconciles no one.
      annotations: { [CREDS_DIGEST_ANNOTATION]: credsDigest(data) },
      // Owned, so the garbage collector deletes it with its user (sign-account holds no delete on
      // Secrets); not blocking the user's deletion, which would need `update` on natsusers/finalizers
      // wherever OwnerReferencesPermissionEnforcement runs (the revoke finalizer holds the user already).
      ownerReferences: [{ ...controllerReference(owner), blockOwnerDeletion: false }],
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    data,
  } as KubeObject;
}

async function writeCreds(kube: Kube, decision: Decision, creds: CredsWrite, jwt: string, pair: KeyPair) {
  const secret = credsSecret(decision, creds.secret, creds.resourceVersion, {
    [creds.key]: base64(formatCreds(jwt, pair)),
  });
  return guarded(() => (creds.resourceVersion ? kube.replace(secret) : kube.create(secret)));
}

/** Empties a creds Secret the user owns (its key given up and revoked), guarded by the resourceVersion read. */
async function clearCreds(kube: Kube, decision: Decision, clear: NonNullable<Decision["clearCreds"]>) {
  const secret = credsSecret(decision, clear.secret, clear.resourceVersion, {});
  return guarded(() => kube.replace(secret));
}

/** An account's claims with the activation tokens of its imports signed in (each by its exporter's key). */
async function withActivations(
  keyring: Keyring,
  request: SignStep["request"],
  activations: NonNullable<SignStep["activations"]>,
): Promise<SignStep["request"]> {
  const claims = structuredClone(request.claims);
  const imports = claims.nats["imports"] as Record<string, unknown>[];
  for (const activation of activations) {
    const entry = imports[activation.index];
    if (entry) entry["token"] = await signJwt(keyring, activation.request);
  }
  return { ...request, claims };
}

/** Takes a key off its operator's status.deletedAccounts, guarded; false when it lost three times. */
async function forgetDeleted(kube: Kube, record: NonNullable<Decision["forgetDeleted"]>): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const operator = await kube.get<NatsOperator>({
      apiVersion: KINDS.NatsOperator.apiVersion,
      kind: "NatsOperator",
      ...record.operator,
    });
    const listed = operator?.status?.deletedAccounts ?? [];
    if (!operator || !listed.some((d) => d.publicKey === record.publicKey)) return true;
    const deletedAccounts = listed.filter((d) => d.publicKey !== record.publicKey);
    const status = { ...operator.status, deletedAccounts };
    const written = await writeStatus(kube, operator, status, FIELD_MANAGER, { whole: true });
    if (written.kind !== "conflict") return true;
  }
  return false;
}

/** Puts each signed JWT where its step says; returns the creds JWT, if any. */
async function signAll(
  keyring: Keyring,
  decision: Decision,
  pair: KeyPair | undefined,
): Promise<{ status: Record<string, unknown>; credsJwt?: string }> {
  const status: Record<string, unknown> = structuredClone(decision.status);
  let credsJwt: string | undefined;
  for (const step of decision.sign) {
    const keyed: SignStep["request"] =
      step.into === "creds" && pair
        ? { ...step.request, claims: { ...step.request.claims, sub: pair.getPublicKey() } }
        : step.request;
    const request = step.activations ? await withActivations(keyring, keyed, step.activations) : keyed;
    const jwt = await signJwt(keyring, request);
    if (step.into === "creds") {
      credsJwt = jwt;
      status["publicKey"] = request.claims.sub;
    } else if (step.into === "systemAccount.jwt") {
      status["systemAccount"] = { ...(status["systemAccount"] as object), jwt };
    } else {
      status["jwt"] = jwt;
      if (decision.kind === "NatsAccount") {
        delete status["jwtExpires"];
        Object.assign(status, accountJwtFields(jwt));
      }
    }
  }
  for (const token of decision.exportTokens ?? []) {
    const exports = (status["exports"] ?? []) as ExportStatus[];
    const entry = exports.find((e) => e.name === token.export)?.importers?.find((i) => i.publicKey === token.publicKey);
    if (entry) entry.activationToken = await signJwt(keyring, token.request);
  }
  return { status, ...(credsJwt ? { credsJwt } : {}) };
}

/** Pushes the JWT just written to status, after the claim; a Normal Event for an acknowledged push. */
async function push(
  recorder: EventRecorder,
  decision: Decision,
  status: Record<string, unknown>,
  system: SystemLink | undefined,
  now: Date,
): Promise<PassResult> {
  const jwt = decision.jwt ?? status["jwt"];
  if (!decision.push || system?.kind !== "up" || typeof jwt !== "string") return { kind: "done" };
  const servers = (status["distribution"] as { servers?: number } | undefined)?.servers ?? 0;
  const outcome = await pushJwt(system.nc, jwt, servers, now);
  if (outcome.acknowledged > 0)
    await recorder.record(
      decision.object,
      "Normal",
      "JWTPushed",
      `pushed JWT ${jwtHash(jwt).slice(0, 12)}: ${outcome.acknowledged} of ${servers} servers acknowledged`,
    );
  return { kind: "pushed", outcome };
}

/** Closes a deleted user's connections, after the claim; a Normal UserKicked Event for those closed. */
async function kick(
  recorder: EventRecorder,
  decision: Decision,
  kicks: readonly Kick[],
  nc: NatsConnection,
): Promise<PassResult> {
  const outcome = await kickConnections(nc, kicks);
  if (outcome.kicked > 0) {
    const servers = new Set(kicks.map((k) => k.server)).size;
    await recorder.record(
      decision.object,
      "Normal",
      "UserKicked",
      `closed ${outcome.kicked} connection(s) of NatsUser ${decision.object.metadata.name} on ${servers} server(s)`,
    );
  }
  return { kind: "kicked", outcome };
}

/** Sends the decision's delete request, signed by the operator key it names, after the claim. */
async function sendDelete(
  recorder: EventRecorder,
  keyring: Keyring,
  decision: Decision,
  system: SystemLink | undefined,
  now: Date,
): Promise<PassResult> {
  const request = decision.deleteRequest;
  if (!request || system?.kind !== "up") return { kind: "done" };
  // Subject and issuer are the same operator key: the resolver takes a delete only self-signed
  // by a key its operator JWT lists.
  const jwt = await encodeGeneric("delete accounts", keyring.pair(request.signer), "generic", {
    accounts: [...request.accounts].sort(),
  });
  const servers = (await readRoster(system)).length;
  const outcome = await deleteClaims(system.nc, jwt, servers, now);
  if (outcome.acknowledged > 0)
    await recorder.record(
      decision.object,
      "Normal",
      "JWTDeleted",
      `deleted account ${request.accounts.join(", ")} from the resolvers: ${outcome.acknowledged} of ${servers} servers acknowledged`,
    );
  return { kind: "deleted", outcome };
}

/** What act's writes leave for the runtime: the object as stored after them, and whether the record went with its status. */
interface Left {
  object: KubeObject | undefined;
  recorded: boolean;
}

export async function act(
  kube: Kube,
  recorder: EventRecorder,
  keyring: Keyring,
  decision: Decision,
  system?: SystemLink,
  now: Date = new Date(),
  record?: InputsRecord,
): Promise<PassResult> {
  const left: Left = { object: decision.object, recorded: false };
  const result = await actOn(kube, recorder, keyring, decision, system, now, record, left);
  if (result.kind !== "done") return result;
  return { kind: "done", ...(left.object ? { left: left.object } : {}), recorded: left.recorded };
}

async function actOn(
  kube: Kube,
  recorder: EventRecorder,
  keyring: Keyring,
  decision: Decision,
  system: SystemLink | undefined,
  now: Date,
  record: InputsRecord | undefined,
  left: Left,
): Promise<PassResult> {
  const object = decision.object;
  if (decision.generate.length > 0) {
    for (const seed of decision.generate) {
      const made = await generateSeed(kube, object.metadata.namespace, object.metadata.name, seed);
      if (made.kind === "conflict") return { kind: "conflict" };
    }
    await recorder.record(
      object,
      "Normal",
      "KeysGenerated",
      `generated seeds into Secret ${decision.generate.map((s) => s.secret).join(", ")}`,
    );
    return { kind: "generated" };
  }
  const pair = decision.creds ? userPair(keyring, decision.creds) : undefined;
  const { status, credsJwt } = await signAll(keyring, decision, pair);
  // A new creds Secret is its own claim (one create succeeds) and is made before status names its
  // key: a status naming a key no Secret holds reads to the next delivery as a key given up, to revoke.
  const newCreds = decision.creds?.resourceVersion === undefined ? decision.creds : undefined;
  if (newCreds && credsJwt && pair) {
    const created = await writeCreds(kube, decision, newCreds, credsJwt, pair);
    if (created.kind === "conflict") return { kind: "conflict" };
  }
  // The runtime's record of what this pass observed goes with the status, when that is written.
  const written = await writeStatus(kube, object, status, FIELD_MANAGER, {
    whole: true,
    ...(record ? { record } : {}),
  });
  if (written.kind === "conflict") return { kind: "conflict" };
  // Finalizer patches carry the resourceVersion just written: a write since is a conflict.
  let latest = written.kind === "written" ? written.object : object;
  left.recorded = written.kind === "written" && record !== undefined;
  left.object = latest;
  const finalizer = decision.kind === "NatsUser" ? FINALIZERS.userRevoke : FINALIZERS.accountDelete;
  if (decision.finalizer === "add") {
    const added = await guarded(() => addFinalizer(kube, latest, finalizer));
    if (added.kind === "conflict") return { kind: "conflict" };
    latest = added.value;
    left.object = latest;
  }
  if (decision.recordDeleted && !(await recordDeleted(kube, decision.recordDeleted))) return { kind: "conflict" };
  if (decision.forgetDeleted && !(await forgetDeleted(kube, decision.forgetDeleted))) return { kind: "conflict" };
  if (decision.kicks && decision.kicks.length > 0 && system?.kind === "up")
    return kick(recorder, decision, decision.kicks, system.nc);
  if (decision.finalizer === "remove") {
    const removed = await guarded(() => removeFinalizer(kube, latest, finalizer));
    if (removed.kind === "conflict") return { kind: "conflict" };
    // Its last finalizer gone, an object being deleted is gone too: what is left is read, not told.
    const gone = removed.value.metadata.deletionTimestamp && (removed.value.metadata.finalizers ?? []).length === 0;
    left.object = gone ? undefined : removed.value;
  }
  if (decision.creds && !newCreds && credsJwt && pair) {
    const creds = await writeCreds(kube, decision, decision.creds, credsJwt, pair);
    if (creds.kind === "conflict") return { kind: "conflict" };
  }
  if (decision.clearCreds) {
    const cleared = await clearCreds(kube, decision, decision.clearCreds);
    if (cleared.kind === "conflict") return { kind: "conflict" };
  }
  for (const event of decision.events) await recorder.record(object, event.type, event.reason, event.note);
  if (decision.deleteRequest) return sendDelete(recorder, keyring, decision, system, now);
  return push(recorder, decision, status, system, now);
}
