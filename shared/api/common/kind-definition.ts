// What the code generator needs to know about a kind: its registry entry,
// schemas, root-level CEL rules and printer columns.
import { Type, type TSchema } from "typebox";
import type { KindInfo } from "../kinds.ts";
import type { CelRule } from "./fields.ts";
import { ObjectMeta } from "./object-meta.ts";

export interface PrinterColumn {
  readonly name: string;
  readonly type: "string" | "integer" | "number" | "boolean" | "date";
  readonly jsonPath: string;
  readonly description: string;
  readonly priority?: number;
}

/** A field the kind's objects can be listed by (`selectableFields` of the CRD version). */
export interface SelectableFieldDefinition {
  /** From the object's root, as the CRD names it: `.spec.accountRef.name`. */
  readonly jsonPath: string;
}

export interface MetadataNameRule {
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly why: string;
}

export interface KindDefinition {
  readonly info: KindInfo;
  /** What the kind is for, shown by `kubectl explain <kind>`. */
  readonly description: string;
  readonly spec: TSchema;
  readonly status?: TSchema;
  /** Rules on the whole object (they may read `self.metadata.name`). */
  readonly rules?: readonly CelRule[];
  readonly columns: readonly PrinterColumn[];
  readonly metadataName?: MetadataNameRule;
  /** Fields a field selector may name (shared/api/selectable-fields.ts). */
  readonly selectableFields?: readonly SelectableFieldDefinition[];
}

/** The selectable fields of a kind in the CRD's form, from the dotted paths selectors name. */
export const selectableFields = (paths: readonly string[]): SelectableFieldDefinition[] =>
  paths.map((path) => ({ jsonPath: `.${path}` }));

const conditionPath = (type: string, field: "status" | "reason") => `.status.conditions[?(@.type=="${type}")].${field}`;

/** A column showing the status of one condition. */
export const conditionColumn = (type: string, description: string): PrinterColumn => ({
  name: type,
  type: "string",
  jsonPath: conditionPath(type, "status"),
  description,
});

/** A column showing the reason of one condition: for Progressing, how far a rollout is. */
export const conditionReasonColumn = (
  name: string,
  type: string,
  description: string,
  priority?: number,
): PrinterColumn => ({
  name,
  type: "string",
  jsonPath: conditionPath(type, "reason"),
  description,
  ...(priority === undefined ? {} : { priority }),
});

/** Ready and its reason: the two columns every kind with a status shows. */
export const readyColumns = (): PrinterColumn[] => [
  conditionColumn("Ready", "Whether the object has reached its desired state."),
  {
    name: "Reason",
    type: "string",
    jsonPath: conditionPath("Ready", "reason"),
    description: "Why Ready has its status.",
  },
];

export const ageColumn = (): PrinterColumn => ({
  name: "Age",
  type: "date",
  jsonPath: ".metadata.creationTimestamp",
  description: "Time since the object was created.",
});

/** The schema of a whole object of a kind: the shape functions read and write. */
export const resourceSchema = <K extends string, Spec extends TSchema, Status extends TSchema>(
  info: KindInfo & { readonly kind: K },
  spec: Spec,
  status: Status,
) =>
  Type.Object(
    {
      apiVersion: Type.String({ description: `Always ${info.apiVersion}.` }),
      kind: Type.Literal(info.kind, { description: `Always ${info.kind}.` }),
      metadata: ObjectMeta,
      spec,
      status: Type.Optional(status),
    },
    { description: `A ${info.kind} object.` },
  );

/** The schema of a whole object of a kind that has no status. */
export const statuslessResourceSchema = <K extends string, Spec extends TSchema>(
  info: KindInfo & { readonly kind: K },
  spec: Spec,
) =>
  Type.Object(
    {
      apiVersion: Type.String({ description: `Always ${info.apiVersion}.` }),
      kind: Type.Literal(info.kind, { description: `Always ${info.kind}.` }),
      metadata: ObjectMeta,
      spec,
    },
    { description: `A ${info.kind} object.` },
  );
