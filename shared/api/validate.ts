// Validators for objects of our kinds, compiled with ajv from the same schemas
// the CRDs are generated from. They return errors as values and never throw.
import { Ajv, type ValidateFunction, type ErrorObject } from "ajv";
import ajvFormats from "ajv-formats";
import { KINDS, isKindName, type KindName } from "./kinds.ts";
import { KIND_DEFINITIONS } from "./definitions.ts";
import { ObjectMeta } from "./common/object-meta.ts";
import { toJson, type Json } from "./codegen/json.ts";
import type { ResourceOf, NatsResource } from "./types.ts";

export interface ValidationError {
  /** JSON pointer into the object, such as `/spec/replicas`; empty for the object itself. */
  readonly path: string;
  readonly message: string;
}

export type Validation<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly ValidationError[] };

export interface ValidateOptions {
  /**
   * `ignore` (default) accepts fields the schema does not know, as a function
   * reading objects from a newer API server must. `reject` refuses them, like
   * the API server's strict field validation.
   */
  readonly unknownFields?: "ignore" | "reject";
}

const KUBERNETES_KEYWORDS = [
  "x-kubernetes-validations",
  "x-kubernetes-int-or-string",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
  "x-kubernetes-embedded-resource",
];

const newAjv = (): Ajv => {
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
  ajvFormats.default(ajv);
  // Kubernetes extensions are annotations here; CEL rules run on the API server only.
  for (const keyword of KUBERNETES_KEYWORDS) ajv.addKeyword({ keyword });
  return ajv;
};

type JsonObject = { [key: string]: Json };
const isObject = (v: Json | undefined): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v);

/** Closes every object schema with known properties, unless it keeps unknown fields on purpose. */
const closeObjects = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === "default" || key === "enum" || key === "x-kubernetes-validations" ? value : closeObjects(value);
  }
  const open = out["x-kubernetes-preserve-unknown-fields"] === true;
  if (isObject(out["properties"]) && out["additionalProperties"] === undefined && !open)
    out["additionalProperties"] = false;
  return out;
};

const resourceJsonSchema = (kind: KindName, unknownFields: "ignore" | "reject"): Json => {
  const def = KIND_DEFINITIONS[kind];
  const properties: JsonObject = {
    apiVersion: { type: "string", const: KINDS[kind].apiVersion },
    kind: { type: "string", const: kind },
    metadata: toJson(ObjectMeta),
    spec: unknownFields === "reject" ? closeObjects(toJson(def.spec)) : toJson(def.spec),
  };
  if (def.status)
    properties["status"] = unknownFields === "reject" ? closeObjects(toJson(def.status)) : toJson(def.status);
  return {
    type: "object",
    properties,
    required: ["apiVersion", "kind", "spec"],
    ...(unknownFields === "reject" ? { additionalProperties: false } : {}),
  };
};

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

const validatorFor = (kind: KindName, unknownFields: "ignore" | "reject"): ValidateFunction => {
  const key = `${kind}/${unknownFields}`;
  let fn = compiled.get(key);
  if (!fn) {
    ajv ??= newAjv();
    fn = ajv.compile(resourceJsonSchema(kind, unknownFields) as object);
    compiled.set(key, fn);
  }
  return fn;
};

const describe = (e: ErrorObject): ValidationError => {
  const params = e.params as Record<string, unknown>;
  const extra =
    e.keyword === "additionalProperties"
      ? ` (${String(params["additionalProperty"])})`
      : e.keyword === "enum"
        ? ` (${(params["allowedValues"] as unknown[]).join(", ")})`
        : "";
  return { path: e.instancePath, message: `${e.message ?? e.keyword}${extra}` };
};

/** Validates an object as the given kind. */
export const validateResource = <K extends KindName>(
  kind: K,
  value: unknown,
  options: ValidateOptions = {},
): Validation<ResourceOf<K>> => {
  try {
    const fn = validatorFor(kind, options.unknownFields ?? "ignore");
    if (fn(value)) return { ok: true, value: value as ResourceOf<K> };
    return { ok: false, errors: (fn.errors ?? []).map(describe) };
  } catch (err) {
    return {
      ok: false,
      errors: [{ path: "", message: `validator failed: ${err instanceof Error ? err.message : String(err)}` }],
    };
  }
};

/** Validates an object of any of our kinds, found by its apiVersion and kind. */
export const validateAnyResource = (value: unknown, options: ValidateOptions = {}): Validation<NatsResource> => {
  const head = value as { apiVersion?: unknown; kind?: unknown } | null;
  const kind = typeof head?.kind === "string" ? head.kind : "";
  if (head === null || typeof head !== "object" || !isKindName(kind)) {
    return { ok: false, errors: [{ path: "/kind", message: `not a kind of this operator: ${JSON.stringify(kind)}` }] };
  }
  if (head.apiVersion !== KINDS[kind].apiVersion) {
    return {
      ok: false,
      errors: [
        {
          path: "/apiVersion",
          message: `${kind} is served as ${KINDS[kind].apiVersion}, not ${String(head.apiVersion)}`,
        },
      ],
    };
  }
  return validateResource(kind, value, options);
};
