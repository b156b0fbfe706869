// A Kube that notes every request it passes on, as `verb kind name` (a listing as `list kind`,
// with its selectors when it has any), and how many objects the listings returned: what the unit
// tests that count a reconcile's requests read.
import type { Kube, ListQuery } from "../../shared/kube/client.ts";
import type { KubeObject } from "../../shared/kube/object.ts";

export interface CountingKube {
  kube: Kube;
  /** Every request so far, in the order made. */
  requests: string[];
  /** The requests since the last call, which are then forgotten. */
  take(): string[];
  /** How many objects the listings so far returned: the payload a reconcile read beyond its gets. */
  listed(): number;
}

const selectors = (query: ListQuery): string =>
  [
    query.namespace ? ` in ${query.namespace}` : "",
    query.labelSelector ? ` labels ${query.labelSelector}` : "",
    query.fieldSelector ? ` fields ${query.fieldSelector}` : "",
  ].join("");

export function countingKube(kube: Kube): CountingKube {
  const requests: string[] = [];
  let items = 0;
  const note = <T>(request: string, made: () => Promise<T>): Promise<T> => {
    requests.push(request);
    return made();
  };
  return {
    requests,
    take: () => requests.splice(0),
    listed: () => items,
    kube: {
      get: (key) => note(`get ${key.kind} ${key.name}`, () => kube.get(key)),
      list: <T extends KubeObject>(query: ListQuery) =>
        note(`list ${query.kind}${selectors(query)}`, async () => {
          const found = await kube.list<T>(query);
          items += found.length;
          return found;
        }),
      apply: (object, manager) =>
        note(`apply ${object.kind} ${object.metadata.name}`, () => kube.apply(object, manager)),
      applyStatus: (object, manager, options) =>
        note(`status ${object.kind} ${object.metadata.name}`, () => kube.applyStatus(object, manager, options)),
      replaceStatus: (object, manager) =>
        note(`status ${object.kind} ${object.metadata.name}`, () => kube.replaceStatus(object, manager)),
      replace: (object) => note(`replace ${object.kind} ${object.metadata.name}`, () => kube.replace(object)),
      patch: (key, body, type) => note(`patch ${key.kind} ${key.name}`, () => kube.patch(key, body, type)),
      create: (object) => note(`create ${object.kind} ${object.metadata.name}`, () => kube.create(object)),
      delete: (key, options) => note(`delete ${key.kind} ${key.name}`, () => kube.delete(key, options)),
    },
  };
}
