import type { OperatorFunction } from "../shared/runtime/index.ts";

/**
 * Every function the image carries, imported only when selected so a Knative
 * Service hosting one function loads one function's code.
 */
const loaders = {
  "render-cluster": async () => (await import("./render-cluster/index.ts")).renderCluster,
  "step-rollout": async () => (await import("./step-rollout/index.ts")).stepRollout,
  "sign-account": async () => (await import("./sign-account/index.ts")).signAccount,
  "sync-stream": async () => (await import("./sync-stream/index.ts")).syncStream,
  balance: async () => (await import("./balance/index.ts")).balance,
  "dead-letter": async () => (await import("./dead-letter/index.ts")).deadLetter,
} satisfies Record<string, () => Promise<OperatorFunction>>;

export type FunctionName = keyof typeof loaders;
export const functionNames = Object.keys(loaders) as FunctionName[];

export type Selection = { ok: true; names: FunctionName[] } | { ok: false; message: string };

/** Reads a comma-separated selection (the FUNCTIONS variable); empty means all. */
export function selectFunctions(spec: string | undefined): Selection {
  const wanted = (spec ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (wanted.length === 0) return { ok: true, names: [...functionNames] };
  const unknown = wanted.filter((name) => !(name in loaders));
  if (unknown.length > 0)
    return { ok: false, message: `unknown function(s) ${unknown.join(", ")}; known: ${functionNames.join(", ")}` };
  return { ok: true, names: [...new Set(wanted)] as FunctionName[] };
}

export function loadFunctions(names: readonly FunctionName[]): Promise<OperatorFunction[]> {
  return Promise.all(names.map((name) => loaders[name]()));
}
