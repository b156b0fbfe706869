// A flood of resync ticks (forged, or the Broker's redeliveries) costs one sweep per firing of the
// function's resync PingSource (shared/runtime/resync-cap.ts): the first tick claims the firing in
// the PingSource's annotation with a write guarded by its resourceVersion, the others find it
// claimed (or lose the race, 409) and sweep nothing. The clock is the functions' own: moved past
// the next firing, a tick sweeps again.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { signAccount } from "../../../functions/sign-account/index.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { pingEvent } from "../../../shared/local/ping-event.ts";
import { RESYNC_WORK } from "../../../shared/runtime/resync.ts";
import { LAST_RESYNC_ANNOTATION } from "../../../shared/runtime/resync-cap.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { resyncPingSources } from "../support/resync.ts";

let env: Environment;
let operator: RunningOperator;
let namespace: string;

const SOURCE = "sign-account-resync";

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("forged-resync");
  // No PingSource fires here: every tick is the test's own, naming the PingSource it claims to be.
  operator = await startOperator(env.transport, {
    functions: [signAccount],
    pingSources: false,
    namespaces: [namespace],
  });
  // Daily at midnight: a burst of ticks falls within one firing unless it straddles midnight.
  const source = (await resyncPingSources(namespace, "0 0 * * *")).find((s) => s.metadata.name === SOURCE);
  if (source === undefined) throw new Error(`no ${SOURCE} in knative/resync.yaml`);
  await env.kube.create(source);
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
}, 60_000);

const burst = (ticks: number) =>
  Promise.all(
    Array.from({ length: ticks }, () =>
      operator.deliver(
        signAccount,
        pingEvent(namespace, SOURCE, {
          data: JSON.stringify(RESYNC_WORK),
          ceOverrides: { extensions: { target: "sign-account" } },
        }),
      ),
    ),
  );
const lastSwept = async () =>
  (
    await env.kube.get<KubeObject>({
      apiVersion: "sources.knative.dev/v1",
      kind: "PingSource",
      namespace,
      name: SOURCE,
    })
  )?.metadata.annotations?.[LAST_RESYNC_ANNOTATION];

describe("resync ticks arriving all at once", () => {
  it("sweep once per firing: twenty at once make one sweep, and twenty more after the next firing (a day on) one more", async () => {
    const first = await burst(20);
    expect(first.filter((o) => o.kind === "done")).toHaveLength(1);
    expect(first.filter((o) => o.kind === "skipped")).toHaveLength(19);
    const claimed = await lastSwept();
    expect(claimed).toMatch(/^\d{4}-\d\d-\d\dT00:00:00\.000Z$/);

    operator.advance(24 * 3600_000);
    const second = await burst(20);
    expect(second.filter((o) => o.kind === "done")).toHaveLength(1);
    expect(Date.parse((await lastSwept()) ?? "")).toBeGreaterThan(Date.parse(claimed ?? ""));
  }, 60_000);
});
