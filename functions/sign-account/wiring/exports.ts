// What a NatsAccount offers other accounts (pure): its spec.exports as account JWT exports, the
// jetstream-stepdown preset expanded into its two service exports, and the export an import names.
import type { Export } from "../../../shared/api/index.ts";

/** An export as spec gives it once presets are expanded: name, type and subject always set. */
export interface ConcreteExport {
  name: string;
  type: "Stream" | "Service";
  subject: string;
  responseType?: "Singleton" | "Stream" | "Chunked";
  access: "Public" | "Private";
  importers: NonNullable<Export["importers"]>;
}

/** The services a balancer moves leaders with (behaviour.md 3.5). */
export const JETSTREAM_STEPDOWN_EXPORTS: readonly ConcreteExport[] = [
  {
    name: "jetstream-stepdown-stream",
    type: "Service",
    subject: "$JS.API.STREAM.LEADER.STEPDOWN.*",
    access: "Public",
    importers: [],
  },
  {
    name: "jetstream-stepdown-consumer",
    type: "Service",
    subject: "$JS.API.CONSUMER.LEADER.STEPDOWN.*.*",
    access: "Public",
    importers: [],
  },
];

/** The account's exports with presets expanded, in spec order. */
export function concreteExports(exports: readonly Export[] | undefined): ConcreteExport[] {
  return (exports ?? []).flatMap((e): ConcreteExport[] => {
    if (e.preset === "jetstream-stepdown") return [...JETSTREAM_STEPDOWN_EXPORTS];
    // The CEL rules make name, type and subject present without a preset.
    if (!e.name || !e.type || !e.subject) return [];
    return [
      {
        name: e.name,
        type: e.type,
        subject: e.subject,
        ...(e.responseType ? { responseType: e.responseType } : {}),
        access: e.access ?? "Public",
        importers: e.importers ?? [],
      },
    ];
  });
}

/** One export as the account JWT carries it: private ones require an activation token. */
export function exportClaim(e: ConcreteExport): Record<string, unknown> {
  return {
    name: e.name,
    subject: e.subject,
    type: e.type === "Service" ? "service" : "stream",
    ...(e.access === "Private" ? { token_req: true } : {}),
    ...(e.type === "Service" ? { response_type: e.responseType ?? "Singleton" } : {}),
  };
}

/** The JWT's `exports`, or nothing when the account exports nothing. */
export function exportsClaim(exports: readonly Export[] | undefined): { exports?: Record<string, unknown>[] } {
  const claims = concreteExports(exports).map(exportClaim);
  return claims.length > 0 ? { exports: claims } : {};
}

/** Whether a private export lists the importer: by kind and name (namespace defaulting to the exporter's) or by key. */
export function listsImporter(
  e: ConcreteExport,
  exporterNamespace: string,
  importer: { namespace: string; name: string; publicKey: string },
): boolean {
  return e.importers.some((i) =>
    i.publicKey !== undefined
      ? i.publicKey === importer.publicKey
      : (i.kind ?? "NatsAccount") === "NatsAccount" &&
        i.name === importer.name &&
        (i.namespace ?? exporterNamespace) === importer.namespace,
  );
}
