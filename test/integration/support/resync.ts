// The resync as the integration tests run it: knative/resync.yaml's PingSources on a short
// schedule (the local runner fires PingSources wherever they are), and faults as
// NATS_OPERATOR_FAULTS gives them.
import { readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { parseFaults, type Faults } from "../../../shared/local/faults.ts";
import { knativeDir } from "../../../shared/local/manifests.ts";
import { waitFor } from "../../harness/wait.ts";
import type { RunningOperator } from "./operator.ts";

type PingSourceManifest = KubeObject & { spec: Record<string, unknown> };

/**
 * knative/resync.yaml's PingSources, moved into `namespace` (the namespace goes with the test)
 * and ticking on `schedule` (`*\/5 * * * * *`: every 5 seconds).
 */
export async function resyncPingSources(namespace: string, schedule: string): Promise<PingSourceManifest[]> {
  const text = await readFile(new URL("resync.yaml", knativeDir), "utf8");
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as PingSourceManifest | null)
    .filter((m): m is PingSourceManifest => m?.kind === "PingSource")
    .map((m) => ({ ...m, metadata: { ...m.metadata, namespace }, spec: { ...m.spec, schedule } }));
}

/** The faults as NATS_OPERATOR_FAULTS would give them. */
export function faults(text: string): Faults {
  const parsed = parseFaults(text, 0);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.faults;
}

/**
 * What a function's resync ticks answered since `since`: a `done` sweep's summary, else the
 * outcome's kind; a tick the resync cap skipped (its firing swept already) swept nothing and is left out.
 */
export function sweepsSince(operator: RunningOperator, fn: string, since: number): string[] {
  return operator.deliveries
    .filter((d) => d.fn === fn && d.object.endsWith(`/${fn}-resync`) && d.at > since && d.outcome.kind !== "skipped")
    .map((d) => (d.outcome.kind === "done" ? (d.outcome.summary ?? "") : d.outcome.kind));
}

/**
 * Waits for the first of `fn`'s sweeps since `since` that delivered an object whose inputs
 * changed; answers its position among those sweeps (0: the first one after `since`).
 */
export async function sweepThatFoundIt(operator: RunningOperator, fn: string, since: number): Promise<number> {
  const found = () =>
    sweepsSince(operator, fn, since).findIndex((s) => /, [1-9]\d* whose inputs changed delivered/.test(s));
  return waitFor("the sweep that found it", () => (found() >= 0 ? found() : undefined), { timeoutMs: 60_000 }).catch(
    (error: unknown) => {
      throw new Error(`${String(error)}; sweeps since: ${sweepsSince(operator, fn, since).join(" | ")}`);
    },
  );
}
