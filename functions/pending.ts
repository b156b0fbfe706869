import { type OperatorFunction, skipped } from "../shared/runtime/index.ts";

/**
 * A function whose reconciler has not landed yet: it is routed, decodes and
 * filters events like any other, and acknowledges what it would reconcile so
 * nothing is retried or dead-lettered in the meantime.
 */
export function pendingFunction(name: string, kinds: readonly string[], handlesPings: boolean): OperatorFunction {
  return {
    name,
    kinds,
    handlesPings,
    async handle(context) {
      context.log.debug("reconciler not implemented yet");
      return skipped(`${name} does not reconcile yet`);
    },
  };
}
