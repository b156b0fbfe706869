import { KubeRequestError } from "../../shared/kube/errors.ts";
import type { KubeTransport, RequestOptions, WatchEvent } from "../../shared/kube/transport.ts";

export interface RecordedRequest {
  method: string;
  path: string;
  options: RequestOptions;
}

/**
 * A transport that records requests and answers from a script: each answer
 * is a value to return or a KubeRequestError to throw, consumed in order
 * per "METHOD path" key.
 */
export function scriptedTransport(
  answers: Record<string, (unknown | KubeRequestError)[]> = {},
  watches: WatchEvent[][] = [],
) {
  const requests: RecordedRequest[] = [];
  const transport: KubeTransport & { requests: RecordedRequest[] } = {
    server: "https://127.0.0.1:6443",
    requests,
    async request(method, path, options = {}) {
      requests.push({ method, path, options });
      const queue = answers[`${method} ${path}`];
      const answer = queue && queue.length > 0 ? queue.shift() : undefined;
      if (answer instanceof KubeRequestError) throw answer;
      return answer ?? {};
    },
    async watch(path, onEvent, signal) {
      requests.push({ method: "WATCH", path, options: {} });
      const batch = watches.shift();
      if (!batch) {
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        return;
      }
      for (const event of batch) onEvent(event);
    },
  };
  return transport;
}
