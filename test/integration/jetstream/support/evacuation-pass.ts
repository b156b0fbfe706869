// Driving a NatsClusterEvacuation from a test: one pass delivered as its PingSource's tick would be.
import { balance } from "../../../../functions/balance/index.ts";
import { pingEvent } from "../../../../shared/local/ping-event.ts";
import { dispatch, type DispatchDeps } from "../../../../shared/runtime/dispatch.ts";
import type { Outcome } from "../../../../shared/runtime/outcome.ts";

/** One pass of the evacuation `name` in `namespace`. */
export function evacuationPass(deps: DispatchDeps, namespace: string, name: string): Promise<Outcome> {
  const ce = pingEvent(namespace, `${name}-evacuation`, {
    data: JSON.stringify({ kind: "NatsClusterEvacuation", namespace, name }),
    ceOverrides: { extensions: { target: "balance" } },
  });
  return dispatch(balance, ce, deps);
}
