import { describe, expect, it } from "@jest/globals";
import { specWriteBack } from "./plan.ts";

describe("writing the server config back into spec", () => {
  const fromServer = { subjects: ["payments.>"], storage: "File", maxAge: "168h0m0s", maxBytes: "-1", discard: "Old" };
  const fields = ["subjects", "storage", "maxAge", "maxBytes", "discard", "replicas"];

  it("fills in only the fields spec leaves out (late initialisation)", () => {
    expect(specWriteBack({ subjects: ["refunds.>"], maxAge: "2160h" }, fromServer, fields, "fill")).toEqual({
      storage: "File",
      maxBytes: "-1",
      discard: "Old",
    });
  });

  it("replaces every config field under Adopt, clearing ones the server does not hold", () => {
    expect(specWriteBack({ replicas: 3 }, fromServer, fields, "replace")).toEqual({ ...fromServer, replicas: null });
  });

  it("writes nothing when spec already says it all", () => {
    expect(specWriteBack(fromServer, fromServer, fields, "fill")).toBeUndefined();
  });
});
