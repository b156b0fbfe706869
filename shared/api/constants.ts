// Every constant of the API in one import: condition types, reasons,
// annotations, labels, finalizers, JetStream metadata keys, field managers.
export * from "./constants/conditions.ts";
export * from "./constants/reasons.ts";
export * from "./constants/vocabulary.ts";
export * from "./constants/annotations.ts";
export * from "./constants/labels.ts";
export * from "./constants/finalizers.ts";
export * from "./constants/jetstream-metadata.ts";
export * from "./constants/field-managers.ts";
