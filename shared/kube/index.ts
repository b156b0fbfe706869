// Kubernetes access, as functions use it: the client, objects and their keys, conditions, the one
// status writer, guarded writes, finalizers, Events and the cross-namespace grant rule.
export * from "./client.ts";
export * from "./conditions.ts";
export * from "./contains.ts";
export * from "./equal.ts";
export * from "./errors.ts";
export * from "./events.ts";
export * from "./finalizers.ts";
export * from "./guarded.ts";
export * from "./object.ts";
export * from "./ownership.ts";
export * from "./reference-grants.ts";
export * from "./status.ts";
export { createTransport, type KubeTransport } from "./transport.ts";
