// sign-account as deployed, over an in-memory API server: an event goes through the runtime's
// dispatch (the echo check, the schedule keeper) to the function, and every write it makes to an
// object sign-account takes events of comes back as that object's event, as the ApiServerSources
// would send it (Resource mode for the auth kinds, Reference mode for Secrets), until none is
// left. Every API request on the way is noted, Events included: what a unit test counts.
import type { CloudEvent } from "cloudevents";
import { KINDS } from "../../shared/api/index.ts";
import type { Kube } from "../../shared/kube/client.ts";
import { createEventRecorder } from "../../shared/kube/events.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import { apiServerEvent } from "../../shared/local/apiserver-event.ts";
import { dispatch, type DispatchDeps } from "../../shared/runtime/dispatch.ts";
import { createLogger } from "../../shared/telemetry/logger.ts";
import { signAccount } from "../../functions/sign-account/index.ts";
import { countingKube, type CountingKube } from "./counting-kube.ts";

const WRITES = new Set(["create", "replace", "status", "patch", "apply"]);

const apiVersionOf = (kind: string): string | undefined =>
  kind === "Secret" ? "v1" : Object.values(KINDS).find((k) => k.kind === kind)?.apiVersion;

/** Deliveries to sign-account over `kube`, each with the events its writes cause. */
export function authDeliveries(kube: Kube, namespace = "auth") {
  const counting: CountingKube = countingKube(kube);
  const deps: DispatchDeps = {
    log: createLogger({ level: "silent" }),
    kube: async () => counting.kube,
    recorder: async () => createEventRecorder(counting.kube, "sign-account", "unit"),
  };
  /** The event of a write of `kind name`, as its ApiServerSource sends it; undefined for kinds no source watches. */
  const eventOf = async (verb: string, kind: string, name: string): Promise<CloudEvent<unknown> | undefined> => {
    const apiVersion = apiVersionOf(kind);
    if (!apiVersion || kind === "Event") return undefined;
    const object = await kube.get<KubeObject>({ apiVersion, kind, namespace, name });
    if (!object) return undefined;
    const action = verb === "create" ? "add" : "update";
    return apiServerEvent("https://unit", kind === "Secret" ? "Reference" : "Resource", action, object);
  };
  return {
    counting,
    /**
     * Delivers `first` and then the event of every write it leads to, in turn: the requests made,
     * as `verb kind name`, in order, and the answers.
     */
    async settle(first: CloudEvent<unknown>): Promise<{ requests: string[]; answers: string[] }> {
      const queue = [first];
      const requests: string[] = [];
      const answers: string[] = [];
      for (let event = queue.shift(), n = 0; event && n < 50; event = queue.shift(), n++) {
        counting.take();
        const outcome = await dispatch(signAccount, event, deps);
        answers.push(`${String(event["kind"])} ${String(event["name"])}: ${outcome.kind}`);
        const made = counting.take();
        requests.push(...made);
        for (const request of made) {
          const [verb = "", kind = "", name = ""] = request.split(" ");
          if (!WRITES.has(verb)) continue;
          const next = await eventOf(verb, kind, name);
          if (next) queue.push(next);
        }
      }
      return { requests, answers };
    },
  };
}

/** The requests that read (gets and lists) and those that write, Events apart. */
export function tally(requests: readonly string[]) {
  const reads = requests.filter((r) => r.startsWith("get ") || r.startsWith("list "));
  const events = requests.filter((r) => r.startsWith("create Event "));
  const writes = requests.filter((r) => !reads.includes(r) && !events.includes(r));
  return { reads, writes, events };
}
