// Small helpers over the API server for the JetStream tests.
import type { Kube } from "../../../../shared/kube/client.ts";
import type { Condition } from "../../../../shared/kube/conditions.ts";
import type { KubeObject } from "../../../../shared/kube/object.ts";
import { waitFor } from "../../../harness/wait.ts";

export const JS = "jetstream.nats-operator.io/v1beta1";
export const CORE = "nats-operator.io/v1beta1";

export type Resource = KubeObject & {
  spec: Record<string, unknown>;
  status?: Record<string, unknown> & { conditions?: Condition[] };
};

export function resource(
  apiVersion: string,
  kind: string,
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): Resource {
  return { apiVersion, kind, metadata: { name, namespace }, spec };
}

export async function create(kube: Kube, object: Resource): Promise<Resource> {
  return kube.create(object);
}

export async function read(
  kube: Kube,
  apiVersion: string,
  kind: string,
  namespace: string,
  name: string,
): Promise<Resource | undefined> {
  return kube.get<Resource>({ apiVersion, kind, namespace, name });
}

export function condition(object: Resource | undefined, type: string): Condition | undefined {
  return object?.status?.conditions?.find((c) => c.type === type);
}

/** "Type=Status/Reason" for each condition, for compact assertions. */
export function conditionsOf(object: Resource | undefined): string[] {
  return (object?.status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}`);
}

/** Waits until the object shows the condition (and, if given, reason) at its current generation. */
export async function waitForCondition(
  kube: Kube,
  key: { apiVersion: string; kind: string; namespace: string; name: string },
  type: string,
  status: "True" | "False",
  reason?: string,
  timeoutMs = 30_000,
): Promise<Resource> {
  let seen: Resource | undefined;
  try {
    return await waitFor(
      `${key.kind} ${key.name} ${type}=${status}${reason ? `/${reason}` : ""}`,
      async () => {
        seen = await kube.get<Resource>(key);
        const c = condition(seen, type);
        const current = seen?.status?.observedGeneration === seen?.metadata.generation;
        return current && c?.status === status && (reason === undefined || c.reason === reason) ? seen : undefined;
      },
      { timeoutMs },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; last status: ${JSON.stringify(seen?.status)}`, { cause: error });
  }
}
