// Acceptance: a CRD installed by the harness enforces its CEL rules
// (x-kubernetes-validations) with the rule's message, on a real kube-apiserver.
import { afterAll, describe, expect, it } from "@jest/globals";
import { join } from "node:path";
import { ApiextensionsV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { apiMessage, apiStatus, installCrds, loadCrdFiles, useNamespace } from "../../harness/index.ts";
import { repoRoot } from "../../harness/paths.ts";

const group = "harness.nats-operator.io";
const crdName = `widgets.${group}`;
const ruleMessage = "spec.replicas must be odd so that a JetStream quorum exists";

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: crdName },
  spec: {
    group,
    scope: "Namespaced",
    names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: { replicas: { type: "integer", minimum: 1 } },
                "x-kubernetes-validations": [{ rule: "self.replicas % 2 == 1", message: ruleMessage }],
              },
            },
          },
        },
      },
    ],
  },
};

const ns = useNamespace("crd");

afterAll(async () => {
  await ns.kc
    .makeApiClient(ApiextensionsV1Api)
    .deleteCustomResourceDefinition({ name: crdName })
    .catch(() => undefined);
});

describe("CRDs installed by the harness", () => {
  it("refuses an object that breaks a CEL rule, with the rule's message", async () => {
    await installCrds(ns.kc, [crd]);
    const custom = ns.kc.makeApiClient(CustomObjectsApi);
    const create = (name: string, replicas: number): Promise<unknown> =>
      custom.createNamespacedCustomObject({
        group,
        version: "v1",
        namespace: ns.name,
        plural: "widgets",
        body: { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name }, spec: { replicas } },
      });

    await expect(create("good", 3)).resolves.toBeDefined();
    const err = await create("bad", 2).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeDefined();
    expect(apiStatus(err)).toBe(422);
    expect(apiMessage(err)).toContain(ruleMessage);
  }, 60_000);

  it("has installed every CRD in crds/ and they are Established", async () => {
    const dir = process.env["NATS_OPERATOR_HARNESS_CRDS"] ?? join(repoRoot, "crds");
    const crds = dir === "none" ? [] : await loadCrdFiles(dir);
    const ext = ns.kc.makeApiClient(ApiextensionsV1Api);
    for (const c of crds) {
      const got = await ext.readCustomResourceDefinition({ name: c.metadata?.name ?? "" });
      expect(got.status?.conditions?.some((x) => x.type === "Established" && x.status === "True")).toBe(true);
    }
  });
});
