import { readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";
import type { Filter } from "./filters.ts";
import type { PingSourceObject } from "./ping-source.ts";

/** What a Trigger says: which events reach which Knative Service. */
export interface TriggerRoute {
  name: string;
  /** The subscriber Service, which is also the name of the function it hosts. */
  service: string;
  filters: Filter[];
  attributes: Record<string, string> | undefined;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: "In" | "NotIn" | "Exists" | "DoesNotExist"; values?: string[] }[];
}

/** One watched resource of an ApiServerSource. */
export interface WatchedResource {
  source: string;
  mode: "Resource" | "Reference";
  apiVersion: string;
  kind: string;
  selector: LabelSelector | undefined;
  owner: { apiVersion: string; kind: string } | undefined;
}

interface Manifest {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  spec?: Record<string, unknown>;
}

async function readManifests(path: string | URL): Promise<Manifest[]> {
  const text = await readFile(path, "utf8");
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

export const knativeDir = new URL("../../knative/", import.meta.url);

export async function loadTriggerRoutes(
  path: string | URL = new URL("triggers.yaml", knativeDir),
): Promise<TriggerRoute[]> {
  return (await readManifests(path))
    .filter((m) => m.kind === "Trigger")
    .map((m) => {
      const spec = m.spec as {
        filters?: Filter[];
        filter?: { attributes?: Record<string, string> };
        subscriber?: { ref?: { name?: string } };
      };
      return {
        name: m.metadata?.name ?? "",
        service: spec.subscriber?.ref?.name ?? "",
        filters: spec.filters ?? [],
        attributes: spec.filter?.attributes,
      };
    });
}

/** The cluster-wide resync PingSources, one per function. */
export async function loadResyncSchedules(
  path: string | URL = new URL("resync.yaml", knativeDir),
): Promise<PingSourceObject[]> {
  return (await readManifests(path))
    .filter((m) => m.kind === "PingSource")
    .map((m) => ({
      metadata: { name: m.metadata?.name ?? "", namespace: m.metadata?.namespace ?? "" },
      spec: m.spec ?? {},
    }));
}

export async function loadWatchedResources(
  path: string | URL = new URL("apiserversources.yaml", knativeDir),
): Promise<WatchedResource[]> {
  return (await readManifests(path))
    .filter((m) => m.kind === "ApiServerSource")
    .flatMap((m) => {
      const spec = m.spec as {
        mode?: "Resource" | "Reference";
        owner?: { apiVersion: string; kind: string };
        resources: { apiVersion: string; kind: string; selector?: LabelSelector }[];
      };
      return spec.resources.map((r) => ({
        source: m.metadata?.name ?? "",
        mode: spec.mode ?? "Reference",
        apiVersion: r.apiVersion,
        kind: r.kind,
        selector: r.selector,
        owner: spec.owner,
      }));
    });
}

/** The label selector in the query-string form the API server takes. */
export function selectorQuery(selector: LabelSelector | undefined): string | undefined {
  if (!selector) return undefined;
  const parts = [
    ...Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(selector.matchExpressions ?? []).map((e) => {
      switch (e.operator) {
        case "In":
          return `${e.key} in (${(e.values ?? []).join(",")})`;
        case "NotIn":
          return `${e.key} notin (${(e.values ?? []).join(",")})`;
        case "Exists":
          return e.key;
        case "DoesNotExist":
          return `!${e.key}`;
      }
    }),
  ];
  return parts.length > 0 ? parts.join(",") : undefined;
}
