// A NatsSystemAccount's decision (pure): its keys and recorded public key. Its JWT is signed by the
// NatsOperator that names it (decide-operator.ts) into that operator's status; here it is only read.
import type { NatsSystemAccountStatus } from "../../shared/api/auth/nats-system-account.ts";
import {
  noSystemConnection,
  notReady,
  ready,
  referencesResolved,
  referencesUnresolved,
  settle,
  type Refusal,
} from "./conditions.ts";
import type { SystemAccountDecision } from "./decision.ts";
import { judgeKeys } from "./key-verdict.ts";
import { readJWT } from "./compare.ts";
import { jwtHash } from "./jwt-hash.ts";
import { namespaceOf } from "./objects.ts";
import type { SystemAccountObserved } from "./observe.ts";

const offlineKeyRefusal = (what: string, publicKey: string | undefined): Refusal | undefined =>
  publicKey !== undefined && !publicKey.startsWith("A")
    ? { reason: "InvalidKeys", message: `${what}: spec.publicKey ${publicKey} is not an account key` }
    : undefined;

export function decideSystemAccount(observed: SystemAccountObserved, now: Date): SystemAccountDecision {
  const account = observed.object;
  const what = `NatsSystemAccount ${account.metadata.namespace}/${account.metadata.name}`;
  const previous = account.status ?? {};
  const base = { kind: "NatsSystemAccount" as const, object: account, sign: [], schedules: [] };
  const badKey = offlineKeyRefusal(what, account.spec.publicKey);
  const verdict = badKey
    ? ({ kind: "refused", ...badKey } as const)
    : judgeKeys(what, "systemaccount", observed.keys, previous.publicKey, account.spec.publicKey);
  if (verdict.kind === "generate")
    return {
      ...base,
      generate: verdict.seeds,
      status: previous,
      events: [],
      summary: `generating ${verdict.seeds.map((s) => s.secret).join(", ")}`,
    };
  const finish = (status: NatsSystemAccountStatus, updates: Parameters<typeof settle>[2], summary: string) => ({
    ...base,
    generate: [],
    ...settle(previous, status, [...updates, noSystemConnection()], account.metadata.generation, now),
    summary: `${what}: ${summary}`,
  });
  if (verdict.kind === "refused") return finish(previous, [notReady(verdict)], verdict.message);

  const keyed = { ...previous, publicKey: verdict.identity };
  const ref = account.spec.operatorRef;
  const operatorName = `NatsOperator ${namespaceOf(ref, account)}/${ref.name}`;
  const operator = observed.operator;
  if (!operator) {
    const message = `${operatorName} does not exist`;
    return finish(
      keyed,
      [notReady({ reason: "ReferenceNotFound", message }), referencesUnresolved("ReferenceNotFound", message)],
      message,
    );
  }
  const named = operator.spec.systemAccountRef;
  if (named.name !== account.metadata.name || namespaceOf(named, operator) !== account.metadata.namespace) {
    const message = `${operatorName} names NatsSystemAccount ${named.name}, not this one: it is not signed`;
    return finish(keyed, [notReady({ reason: "NotReferenced", message }), referencesResolved()], message);
  }
  const signed = operator.status?.systemAccount;
  const claims = readJWT(signed?.jwt);
  if (!signed?.jwt || signed.publicKey !== verdict.identity || claims?.sub !== verdict.identity) {
    const message = `waiting for ${operatorName} to sign it`;
    return finish(keyed, [notReady({ reason: "Pending", message }), referencesResolved()], message);
  }
  return finish(
    { ...keyed, jwtHash: jwtHash(signed.jwt) },
    [ready(`signed by ${operatorName}; the JWT is in its status.systemAccount`), referencesResolved()],
    "signed",
  );
}
