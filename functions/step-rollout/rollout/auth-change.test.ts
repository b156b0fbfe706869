import { describe, expect, it } from "@jest/globals";
import { authChange } from "./auth-change.ts";

const plain = JSON.stringify({ server_name: "demo-0", jetstream: {} });
const operatorMode = JSON.stringify({ server_name: "demo-0", operator: "eyJ0eXAi", system_account: "ADSYS" });

describe("auth change between the running and the planned config", () => {
  it("is an addition when the planned config trusts an operator and the running one does not", () => {
    expect(authChange(plain, operatorMode)).toBe("added");
  });

  it("is a removal the other way round", () => {
    expect(authChange(operatorMode, plain)).toBe("removed");
  });

  it("is none when both run in the same mode, whatever else changed", () => {
    expect(authChange(plain, JSON.stringify({ server_name: "demo-0" }))).toBeUndefined();
    expect(authChange(operatorMode, JSON.stringify({ operator: "eyJother" }))).toBeUndefined();
  });

  it("is none when the running config cannot be read", () => {
    expect(authChange("not json", operatorMode)).toBeUndefined();
  });
});
