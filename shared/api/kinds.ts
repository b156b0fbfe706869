// The kind registry: what every kind is called and where it lives. Pure data,
// cheap to import from any function (no schemas here).
import { API_GROUPS, API_VERSION, CATEGORIES, type ApiGroupKey } from "./groups.ts";

export interface KindInfo {
  readonly kind: string;
  readonly groupKey: ApiGroupKey;
  readonly group: string;
  readonly version: string;
  readonly apiVersion: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly namespaced: true;
  readonly hasStatus: boolean;
}

const define = <const K extends string>(
  kind: K,
  groupKey: ApiGroupKey,
  shortNames: readonly string[],
  hasStatus = true,
): KindInfo & { readonly kind: K } => ({
  kind,
  groupKey,
  group: API_GROUPS[groupKey],
  version: API_VERSION,
  apiVersion: `${API_GROUPS[groupKey]}/${API_VERSION}`,
  plural: `${kind.toLowerCase()}s`,
  singular: kind.toLowerCase(),
  shortNames,
  categories: [CATEGORIES.all, CATEGORIES[groupKey]],
  namespaced: true,
  hasStatus,
});

export const KINDS = {
  NatsOperatorTrust: define("NatsOperatorTrust", "core", ["nopt"]),
  NatsAccountTrust: define("NatsAccountTrust", "core", ["nact"]),
  NatsConnection: define("NatsConnection", "core", ["nconn"]),
  NatsReferenceGrant: define("NatsReferenceGrant", "core", ["nrg"], false),
  NatsCluster: define("NatsCluster", "cluster", ["ncl"]),
  NatsOperator: define("NatsOperator", "auth", ["nop"]),
  NatsSystemAccount: define("NatsSystemAccount", "auth", ["nsysacc"]),
  NatsAccount: define("NatsAccount", "auth", ["nacc"]),
  NatsUser: define("NatsUser", "auth", ["nuser"]),
  NatsStream: define("NatsStream", "jetstream", ["nstr"]),
  NatsConsumer: define("NatsConsumer", "jetstream", ["ncons"]),
  NatsKeyValue: define("NatsKeyValue", "jetstream", ["nkv"]),
  NatsObjectStore: define("NatsObjectStore", "jetstream", ["nobj"]),
  NatsBalancer: define("NatsBalancer", "jetstream", ["nbal"]),
  NatsSystemBalancer: define("NatsSystemBalancer", "jetstream", ["nsysbal"]),
  NatsClusterEvacuation: define("NatsClusterEvacuation", "jetstream", ["nevac"]),
} as const;

export type KindName = keyof typeof KINDS;

export const KIND_NAMES = Object.keys(KINDS) as KindName[];

export const isKindName = (value: string): value is KindName => Object.hasOwn(KINDS, value);

/** Looks a kind up by apiVersion and kind, as written in a manifest. */
export const kindOf = (apiVersion: string, kind: string): KindInfo | undefined => {
  if (!isKindName(kind)) return undefined;
  const info = KINDS[kind];
  return info.apiVersion === apiVersion ? info : undefined;
};

/** The plural resource name of a kind, for REST paths. */
export const pluralOf = (apiVersion: string, kind: string): string | undefined => kindOf(apiVersion, kind)?.plural;
