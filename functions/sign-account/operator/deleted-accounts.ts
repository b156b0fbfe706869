// The operator's deleted accounts (pure): a server that was away when an account was deleted, or a
// cluster that rejoins, still holds its JWT, and the resolvers' own sync only ever adds. While
// `status.deletedAccounts` lists an account, the operator asks every server and sends the delete
// again for any account a server still holds; a poll keeps asking until the entries expire (A22).
// A server is found by the JWT it still holds, not by its return to the STATSZ roster, and nothing
// here is counted done, so the roster's three-miss rule (A19) has no part: a server one poll
// missed is asked again by the next.
import { keepPolling, type ScheduleDecision, stopPolling } from "../../../shared/runtime/index.ts";
import type { OperatorDecision } from "../decision.ts";
import { judgeKeys } from "../keys/key-verdict.ts";
import type { NatsOperator } from "../objects.ts";
import type { OperatorObserved } from "./types.ts";

export const deletionsPollName = (operator: string): string => `${operator}-operator-deletions`;

/** How often servers are asked whether they hold a deleted account again (a rejoined server does). */
const WATCH = { every: "1m" } as const;

/** The operator's watch for deleted accounts a server still holds, kept while it lists any. */
export function deletionsPoll(operator: NatsOperator, watching: boolean): ScheduleDecision {
  const id = { namespace: operator.metadata.namespace, name: deletionsPollName(operator.metadata.name) };
  if (!watching) return stopPolling(id);
  return keepPolling(
    {
      ...id,
      target: "sign-account",
      work: { namespace: operator.metadata.namespace, kind: "NatsOperator", name: operator.metadata.name },
      scope: { kind: "object", owner: operator },
    },
    WATCH,
  );
}

/** The operator's decision with the deletes to send again and the poll that watches for rejoins. */
export function withDeletions(decision: OperatorDecision, observed: OperatorObserved): OperatorDecision {
  const reading = observed.deletions ?? { kind: "off" };
  if (decision.generate.length > 0 || reading.kind === "off") return decision;
  const listed = new Set((decision.status.deletedAccounts ?? []).map((d) => d.publicKey));
  const watching = listed.size > 0;
  const schedules = [...decision.schedules, deletionsPoll(observed.object, watching)];
  if (reading.kind !== "read" || !watching) return { ...decision, schedules };
  const held = reading.held.filter((key) => listed.has(key)).sort();
  const operator = observed.object;
  const signer = judgeKeys(
    `NatsOperator ${operator.metadata.namespace}/${operator.metadata.name}`,
    "operator",
    observed.keys,
    decision.status.publicKey,
    decision.status.publicKey,
  );
  if (held.length === 0 || reading.lastDelete || signer.kind !== "ready") return { ...decision, schedules };
  return {
    ...decision,
    deleteRequest: { signer: signer.active, accounts: held },
    schedules,
    summary: `${decision.summary}; deleting ${held.length} deleted account(s) still held by a server`,
  };
}
