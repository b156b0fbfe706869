// The API server as a loaded one answers: a share of the functions' requests refused with 429 or
// 503 before they reach it, and a share of their writes applied with the answer lost (the client
// sees a time-out, as when a connection drops after the server committed). Watches, which feed the
// event sources, pass untouched. Which request gets which fault comes from the seeded `random`.
import { KubeRequestError } from "../../../../shared/kube/errors.ts";
import type { KubeTransport } from "../../../../shared/kube/transport.ts";

export interface ApiFaultCounts {
  throttled: number;
  unavailable: number;
  answersLost: number;
  requests: number;
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** `share` of requests get a fault: a third each 429, 503, and (for writes) applied with the answer lost. */
export function withApiFaults(
  inner: KubeTransport,
  random: () => number,
  share: number,
): KubeTransport & { readonly counts: ApiFaultCounts } {
  const counts: ApiFaultCounts = { throttled: 0, unavailable: 0, answersLost: 0, requests: 0 };
  return {
    server: inner.server,
    counts,
    async request(method, path, options) {
      counts.requests++;
      const roll = random() / share;
      if (roll < 1 / 3) {
        counts.throttled++;
        throw new KubeRequestError(429, "TooManyRequests", `${method} ${path}: too many requests, try again later`);
      }
      if (roll < 2 / 3) {
        counts.unavailable++;
        throw new KubeRequestError(503, "ServiceUnavailable", `${method} ${path}: the server is currently unavailable`);
      }
      const answer = await inner.request(method, path, options);
      if (roll < 1 && WRITES.has(method)) {
        counts.answersLost++;
        throw new KubeRequestError(0, "NetworkError", `${method} ${path} timed out after 30000 ms`);
      }
      return answer;
    },
    watch: (path, onEvent, signal) => inner.watch(path, onEvent, signal),
  };
}
