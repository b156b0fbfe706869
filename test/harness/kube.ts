// Clients for the harness's API server, from KUBECONFIG.
import { KubeConfig } from "@kubernetes/client-node";

export function kubeConfig(): KubeConfig {
  const path = process.env["KUBECONFIG"];
  if (!path)
    throw new Error("KUBECONFIG is not set: integration tests run under the harness (npm run test:integration)");
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/** The HTTP status of a client-node ApiException, if any. */
export function apiStatus(err: unknown): number | undefined {
  const e = err as { code?: number; statusCode?: number };
  return e.code ?? e.statusCode;
}

/** The Status message of a client-node ApiException (the API server's own words). */
export function apiMessage(err: unknown): string {
  const body = (err as { body?: unknown }).body;
  if (typeof body === "string") {
    try {
      return (JSON.parse(body) as { message?: string }).message ?? body;
    } catch {
      return body;
    }
  }
  if (body !== null && typeof body === "object" && "message" in body)
    return String((body as { message: unknown }).message);
  return err instanceof Error ? err.message : String(err);
}
