import type { OperatorFunction } from "./function.ts";

export type Selection = { ok: true; names: readonly string[] } | { ok: false; message: string };

/**
 * The functions an entry point can host. The runtime takes it as a parameter: it lives in
 * functions/catalog.ts, which only bin/ imports, so shared/ never depends on functions/.
 */
export interface FunctionCatalog {
  /** Reads a comma-separated selection (the FUNCTIONS variable); empty means all. */
  selectFunctions(spec: string | undefined): Selection;
  loadFunctions(names: readonly string[]): Promise<OperatorFunction[]>;
}
