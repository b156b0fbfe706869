// The fields a kind's objects can be listed by (CRD `selectableFields`, Kubernetes 1.32 or newer):
// a reconcile asks the API server for the objects that concern it rather than listing a kind
// across the cluster and filtering in memory, so its cost does not grow with the installation.
// The CRDs are generated from this table (codegen/crd.ts), and the unit tests' API server refuses
// a selector on any other field, as the real one does (400, "field label not supported").
import type { KindName } from "./kinds.ts";

export const SELECTABLE_FIELDS = {
  // An account's accounts under one operator; who holds a key (keys/key-claims.ts).
  // (spec.keys.identity: whether its identity seed is in a Secret it names, which may be a copy.)
  NatsAccount: ["spec.operatorRef.name", "spec.publicKey", "status.publicKey", "spec.keys.identity.secretKeyRef.name"],
  // An account's users; who holds a user key; the users referring into a namespace (a grant's).
  NatsUser: ["spec.accountRef.name", "spec.publicKey", "status.publicKey", "spec.accountRef.namespace"],
  // The reference-form trusts mirroring one account or operator.
  NatsAccountTrust: ["spec.accountRef.name"],
  NatsOperatorTrust: ["spec.operatorRef.name"],
} as const satisfies Partial<Record<KindName, readonly string[]>>;

export type SelectableKind = keyof typeof SELECTABLE_FIELDS;

/** The fields of `K` a selector may name: its selectable fields, and every object's name and namespace. */
export type SelectableField<K extends SelectableKind> =
  (typeof SELECTABLE_FIELDS)[K][number] | "metadata.name" | "metadata.namespace";

/** A field selector value as the API server reads it: `\`, `,` and `=` escaped (fields.EscapeValue). */
const escapeValue = (value: string): string => value.replace(/[\\,=]/g, (c) => `\\${c}`);

/**
 * A field selector of equalities, every term of which must hold, and of fields that must be set
 * (`present`). A value of "" selects the objects that lack the field, as the API server reads a
 * missing selectable field as empty.
 */
export function fieldsEqual<K extends SelectableKind>(
  _kind: K,
  terms: Partial<Record<SelectableField<K>, string>>,
  present: readonly SelectableField<K>[] = [],
): string {
  const equal = Object.entries(terms)
    .filter((entry): entry is [string, string] => typeof entry[1] === "string")
    .map(([field, value]) => `${field}=${escapeValue(value)}`);
  return [...equal, ...present.map((field) => `${field}!=`)].join(",");
}
