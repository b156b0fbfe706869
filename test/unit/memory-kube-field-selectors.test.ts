import { describe, expect, it } from "@jest/globals";
import { fieldsEqual, KINDS } from "../../shared/api/index.ts";
import { KubeRequestError } from "../../shared/kube/errors.ts";
import type { KubeObject } from "../../shared/kube/object.ts";
import { accountObject, userObject } from "../fixtures/auth/objects.ts";
import { memoryKube } from "../support/memory-kube.ts";

const ACCOUNTS = { apiVersion: KINDS.NatsAccount.apiVersion, kind: "NatsAccount" };
const USERS = { apiVersion: KINDS.NatsUser.apiVersion, kind: "NatsUser" };
const names = (objects: KubeObject[]) => objects.map((o) => o.metadata.name).sort();

const keyed = (name: string, publicKey?: string) =>
  ({ ...accountObject(name), ...(publicKey ? { status: { publicKey } } : {}) }) as KubeObject;

describe("the unit tests' API server reads field selectors as the real one does", () => {
  it("selects by a CRD's selectable fields, every term holding", async () => {
    const kube = memoryKube([
      userObject("alice"),
      userObject("bob", { accountRef: { kind: "NatsAccount", name: "other" } }),
    ]);
    const selector = fieldsEqual("NatsUser", { "spec.accountRef.name": "app", "metadata.namespace": "auth" });
    expect(names(await kube.list({ ...USERS, fieldSelector: selector }))).toEqual(["alice"]);
  });

  it("reads a missing selectable field as empty, so `field=` selects the objects without it", async () => {
    const kube = memoryKube([keyed("recorded", "AKEY"), keyed("new")]);
    expect(names(await kube.list({ ...ACCOUNTS, fieldSelector: "status.publicKey=" }))).toEqual(["new"]);
    expect(names(await kube.list({ ...ACCOUNTS, fieldSelector: "status.publicKey!=" }))).toEqual(["recorded"]);
    expect(names(await kube.list({ ...ACCOUNTS, fieldSelector: "status.publicKey==AKEY" }))).toEqual(["recorded"]);
  });

  it("refuses a field the kind cannot be selected by with 400, as `field label not supported`", async () => {
    const kube = memoryKube([accountObject("app")]);
    const refusal = kube.list({ ...ACCOUNTS, fieldSelector: "spec.jwtTTL=48h" });
    await expect(refusal).rejects.toBeInstanceOf(KubeRequestError);
    await expect(refusal).rejects.toMatchObject({ code: 400, message: "field label not supported: spec.jwtTTL" });
    // A built-in kind's own field labels are not a custom kind's.
    await expect(kube.list({ ...ACCOUNTS, fieldSelector: "involvedObject.name=app" })).rejects.toMatchObject({
      code: 400,
    });
  });

  it("unescapes values as fields.EscapeValue escapes them", async () => {
    expect(fieldsEqual("NatsUser", { "spec.publicKey": "a,b=c\\d" })).toBe("spec.publicKey=a\\,b\\=c\\\\d");
    const odd = {
      ...userObject("odd"),
      spec: { accountRef: { kind: "NatsAccount", name: "app" }, publicKey: "a,b=c" },
    };
    const kube = memoryKube([odd as KubeObject, userObject("plain")]);
    const selector = fieldsEqual("NatsUser", { "spec.publicKey": "a,b=c" });
    expect(names(await kube.list({ ...USERS, fieldSelector: selector }))).toEqual(["odd"]);
  });
});
