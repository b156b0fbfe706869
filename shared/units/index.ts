// Units of the API's fields: durations and quantities.
export * from "./duration.ts";
export * from "./quantity.ts";
