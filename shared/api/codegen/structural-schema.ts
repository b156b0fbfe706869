// Turns a TypeBox schema into a Kubernetes structural schema.
import type { TSchema } from "typebox";
import { toJson, type Json } from "./json.ts";

type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const clean = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(clean);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    // `default` and rule lists are data, not schemas; copy them untouched.
    if (key === "default" || key === "x-kubernetes-validations" || key === "enum") out[key] = value;
    else out[key] = clean(value);
  }
  // An all-optional object needs no `required` list.
  if (Array.isArray(out["required"]) && out["required"].length === 0) delete out["required"];
  return out;
};

/** The openAPIV3Schema fragment of a TypeBox schema. */
export const structuralSchema = (schema: TSchema): Json => clean(toJson(schema));
