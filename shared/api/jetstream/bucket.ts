// Pieces shared by key-value and object-store buckets.
import { NonEmptyText, Optional, Int32 } from "../common/fields.ts";
import { readyColumns, conditionColumn, ageColumn, type PrinterColumn } from "../common/kind-definition.ts";
import { raftColumns } from "./sync-status.ts";

export const bucketName = () =>
  Optional(NonEmptyText("Bucket name (letters, digits, - and _); metadata.name when omitted. Cannot change."));

export const bucketReplicas = () => Optional(Int32("Copies of the bucket's data.", { minimum: 1, maximum: 5 }));

export const bucketColumns = (): PrinterColumn[] => [
  { name: "Bucket", type: "string", jsonPath: ".spec.name", description: "Bucket name." },
  ...readyColumns(),
  conditionColumn("Synced", "Whether the server config matched spec at the last check."),
  ...raftColumns(),
  { name: "Replicas", type: "integer", jsonPath: ".spec.replicas", description: "Copies of the data wanted." },
  ageColumn(),
];
