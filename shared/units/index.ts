// Units of the API's fields: durations.
export * from "./duration.ts";
