import { describe, expect, it } from "@jest/globals";
import { KubeRequestError } from "./errors.ts";
import { guarded, isConflict } from "./guarded.ts";

describe("guarded", () => {
  it("answers the write's result when the write holds", async () => {
    expect(await guarded(async () => "stored")).toEqual({ kind: "written", value: "stored" });
  });

  it("turns a 409 into a conflict value: someone else claimed it first", async () => {
    const refused = new KubeRequestError(409, "Conflict", "the object has been modified");
    const result = await guarded(async () => {
      throw refused;
    });
    expect(result).toEqual({ kind: "conflict", error: refused });
  });

  it("throws every other failure as it came", async () => {
    const gone = new KubeRequestError(404, "NotFound", "not found");
    await expect(
      guarded(async () => {
        throw gone;
      }),
    ).rejects.toBe(gone);
  });
});

describe("isConflict", () => {
  it("recognises only the API server's 409", () => {
    expect(isConflict(new KubeRequestError(409, "AlreadyExists", "exists"))).toBe(true);
    expect(isConflict(new KubeRequestError(422, "Invalid", "invalid"))).toBe(false);
    expect(isConflict(new Error("409"))).toBe(false);
  });
});
