import type { OperatorFunction } from "../../shared/runtime/function.ts";
import type { Outcome } from "../../shared/runtime/outcome.ts";
import { createLogger } from "../../shared/telemetry/logger.ts";
import type { DispatchDeps } from "../../shared/runtime/dispatch.ts";
import { Writable } from "node:stream";

/** A function over NatsCluster whose answer the test decides. */
export function scriptedFunction(
  answer: () => Promise<Outcome>,
  name = "scripted",
): OperatorFunction & { calls: number } {
  const fn = {
    name,
    kinds: ["NatsCluster.cluster.nats-operator.io"],
    handlesPings: true,
    actionAnnotations: ["cluster.nats-operator.io/force-step"],
    calls: 0,
    async handle() {
      fn.calls++;
      return answer();
    },
  };
  return fn;
}

/** Dispatch dependencies that fail loudly if a function reaches for the API server. */
export function offlineDeps(lines: string[] = []): DispatchDeps {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  return {
    log: createLogger({ level: "debug", destination: sink }),
    kube: () => Promise.reject(new Error("no API server in this test")),
    recorder: () => Promise.reject(new Error("no API server in this test")),
  };
}
