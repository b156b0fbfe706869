import { describe, expect, it } from "@jest/globals";
import { retiringKeysCondition } from "./retiring-keys.ts";

const jwtIssuedBy = (iss: string) => `e30.${Buffer.from(JSON.stringify({ iss, sub: "A" })).toString("base64url")}.sig`;

describe("RetiringKeysInUse", () => {
  it("is absent while no signing key is retiring", () => {
    expect(retiringKeysCondition([], [{ account: "team/a", jwt: jwtIssuedBy("OOLD") }])).toBeUndefined();
  });

  it("is True, naming the accounts, while an account JWT is signed by a retiring key", () => {
    const condition = retiringKeysCondition(
      ["OOLD"],
      [
        { account: "team/a", jwt: jwtIssuedBy("OOLD") },
        { account: "team/b", jwt: jwtIssuedBy("ONEW") },
      ],
    );
    expect(condition).toEqual({
      type: "RetiringKeysInUse",
      status: "True",
      reason: "InUse",
      message: "1 account JWT is still signed by a retiring key: team/a",
    });
  });

  it("is False once every account is re-signed by another key, saying the retiring key can be removed", () => {
    expect(retiringKeysCondition(["OOLD"], [{ account: "team/a", jwt: jwtIssuedBy("ONEW") }])).toMatchObject({
      status: "False",
      reason: "NoneInUse",
      message: "no account JWT is signed by a retiring key: OOLD can be removed",
    });
  });
});
