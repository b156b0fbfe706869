// The system account's side of the jetstream-stepdown export preset (pure): for every account of
// the operator that carries it, the two leader-stepdown services imported into the system account
// under `acc.<account key>.`, so a balancer's system user can move that account's leaders.
import { readJWT } from "../jwt/compare.ts";
import { JETSTREAM_STEPDOWN_EXPORTS } from "../wiring/exports.ts";
import type { NatsAccount } from "../objects.ts";
import { GRANT_REASONS } from "../../../shared/api/index.ts";

/** Whether the account offers the stepdown services and is signed under its operator (keyed, admitted, not being deleted). */
export function offersStepdown(account: NatsAccount): boolean {
  const ready = account.status?.conditions?.find((c) => c.type === "Ready");
  return (
    (account.spec.exports ?? []).some((e) => e.preset === "jetstream-stepdown") &&
    account.status?.publicKey !== undefined &&
    account.status.jwt !== undefined &&
    ready?.reason !== GRANT_REASONS.ReferenceNotPermitted &&
    account.metadata.deletionTimestamp === undefined
  );
}

/** The system account JWT's imports for the accounts (by key) offering the stepdown services, in key order. */
export function stepdownImports(accountKeys: readonly string[]): Record<string, unknown>[] {
  return [...new Set(accountKeys)].sort().flatMap((key) =>
    JETSTREAM_STEPDOWN_EXPORTS.map((e) => ({
      name: e.name,
      subject: e.subject,
      account: key,
      type: "service",
      local_subject: `acc.${key}.${e.subject}`,
    })),
  );
}

/** The account keys a system account JWT imports the stepdown services from. */
export function stepdownImportsOf(systemJwt: string | undefined): string[] {
  const imports = readJWT(systemJwt)?.nats["imports"];
  if (!Array.isArray(imports)) return [];
  const names = new Set(JETSTREAM_STEPDOWN_EXPORTS.map((e) => e.name));
  return (imports as { name?: string; account?: string }[])
    .filter((i) => i.name !== undefined && names.has(i.name) && typeof i.account === "string")
    .map((i) => i.account as string);
}
