// Builds the CustomResourceDefinition of a kind from its definition.
import type { KindDefinition } from "../common/kind-definition.ts";
import { structuralSchema } from "./structural-schema.ts";
import { sortKeys, toJson, type Json } from "./json.ts";

const metadataSchema = (def: KindDefinition): Json => {
  const name = def.metadataName;
  if (!name) return { type: "object" };
  return {
    type: "object",
    properties: {
      name: {
        type: "string",
        ...(name.maxLength === undefined ? {} : { maxLength: name.maxLength }),
        ...(name.pattern === undefined ? {} : { pattern: name.pattern }),
      },
    },
  };
};

/** The whole openAPIV3Schema of a kind. */
export const openApiSchema = (def: KindDefinition): Json => {
  const { info } = def;
  const properties: Record<string, Json> = {
    apiVersion: {
      type: "string",
      description: `Versioned schema of this object; ${info.apiVersion}.`,
    },
    kind: { type: "string", description: `Kind of this object; ${info.kind}.` },
    metadata: metadataSchema(def),
    spec: structuralSchema(def.spec),
  };
  if (def.status) properties["status"] = structuralSchema(def.status);
  return sortKeys({
    type: "object",
    description: def.description,
    properties,
    required: ["spec"],
    ...(def.rules && def.rules.length > 0 ? { "x-kubernetes-validations": toJson(def.rules) } : {}),
  });
};

export const crdName = (def: KindDefinition) => `${def.info.plural}.${def.info.group}`;

/** The CustomResourceDefinition object of a kind. */
export const customResourceDefinition = (def: KindDefinition): Json => {
  const { info } = def;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: crdName(def) },
    spec: {
      group: info.group,
      names: {
        kind: info.kind,
        listKind: `${info.kind}List`,
        plural: info.plural,
        singular: info.singular,
        shortNames: [...info.shortNames],
        categories: [...info.categories],
      },
      scope: "Namespaced",
      versions: [
        {
          name: info.version,
          served: true,
          storage: true,
          ...(info.hasStatus ? { subresources: { status: {} } } : {}),
          additionalPrinterColumns: def.columns.map((c) => toJson(c)),
          ...(def.selectableFields && def.selectableFields.length > 0
            ? { selectableFields: def.selectableFields.map((f) => toJson(f)) }
            : {}),
          schema: { openAPIV3Schema: openApiSchema(def) },
        },
      ],
    },
  };
};
