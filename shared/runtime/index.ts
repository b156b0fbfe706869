// The runtime, as functions use it: the reconciler contract and defineFunction, the outcomes and
// schedules a reconcile answers with, and the events it is handed. The server, dispatch and the
// resync sweep are the runtime's own and are not for functions.
export * from "./reconciler.ts";
export * from "./function.ts";
export * from "./outcome.ts";
export * from "./schedule.ts";
export type * from "./event.ts";
export { EventTypes } from "./event.ts";
export { inBatches } from "./in-batches.ts";
export { operatorNamespace } from "./operator-namespace.ts";
export { isResyncDelivery, RESYNC_WORK } from "./resync.ts";
export type { InputFacet } from "./input-facet.ts";
