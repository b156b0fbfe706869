// The parts of Kubernetes object metadata our code reads. In generated CRDs
// metadata stays the API server's business (only name constraints are added).
import { Type } from "typebox";
import { Text, Int64, StringMap, ListOf, FreeForm, Optional } from "./fields.ts";
import { Time } from "./formats.ts";

export const ObjectMeta = Type.Object(
  {
    name: Optional(Text("Name of the object, unique in its namespace.")),
    generateName: Optional(Text("Prefix the API server completes into a name.")),
    namespace: Optional(Text("Namespace of the object.")),
    uid: Optional(Text("Unique id the API server assigned.")),
    resourceVersion: Optional(Text("Opaque version for optimistic concurrency.")),
    generation: Optional(Int64("Sequence number of the spec.")),
    creationTimestamp: Optional(Time("When the object was created.")),
    deletionTimestamp: Optional(Time("When deletion was requested.")),
    labels: Optional(StringMap("Labels of the object.")),
    annotations: Optional(StringMap("Annotations of the object.")),
    finalizers: Optional(ListOf(Text("A finalizer."), "Finalizers holding deletion.")),
    ownerReferences: Optional(ListOf(FreeForm("An owner reference."), "Objects owning this one.")),
  },
  { description: "Standard object metadata.", "x-kubernetes-preserve-unknown-fields": true },
);
