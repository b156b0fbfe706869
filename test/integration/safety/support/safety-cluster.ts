// What every move under the history checker starts from: the real node, the operator running in
// process, and story 1's NatsCluster `demo` (three JetStream servers) at rest in a namespace of its own.
import { startEnvironment, type Environment } from "../../support/environment.ts";
import { startOperator, type RunningOperator } from "../../support/operator.ts";
import { quickstart, waitAtRest } from "../../cluster/support/natscluster.ts";
import { currentHarness, type HarnessState } from "../../../harness/state.ts";

export interface SafetyCluster {
  harness: HarnessState;
  env: Environment;
  operator: RunningOperator;
  namespace: string;
}

export async function startSafetyCluster(namespacePrefix: string): Promise<SafetyCluster> {
  const harness = await currentHarness();
  if (harness?.realNode === undefined) throw new Error("this file runs on the real node (`// harness: real node`)");
  const env = await startEnvironment();
  const operator = await startOperator(env.transport);
  const namespace = await env.namespace(namespacePrefix);
  await env.kube.create(quickstart(namespace));
  await waitAtRest(env.kube, namespace, 300_000);
  return { harness, env, operator, namespace };
}
