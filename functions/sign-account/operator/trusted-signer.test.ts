// A10, F4: the operator says whether the servers trust the signing key it signs accounts with, and
// an account signed by a key some server does not list reads UntrustedSigner.
import { describe, expect, it } from "@jest/globals";
import { createAccount, createOperator, encodeAccount } from "@nats-io/jwt";
import type { ConditionUpdate } from "../../../shared/kube/index.ts";
import type { NatsOperator } from "../objects.ts";
import type { ServerTrust } from "../servers/trust.ts";
import { distributedUnderTrust, signingKeyTrust } from "./trusted-signer.ts";

const OPERATOR = "OAOPERATOR";
const signerKeys = createOperator();
const SIGNER = signerKeys.getPublicKey();
const trusting = (id: string, signing: string[] = [SIGNER]): ServerTrust => ({
  id,
  operators: [{ key: OPERATOR, signing }],
});
const read = (servers: ServerTrust[], roster = servers.map((s) => s.id)) => ({
  kind: "read" as const,
  roster,
  servers,
});

describe("the NatsOperator's SigningKeyUntrusted condition", () => {
  it("is False, SignerTrusted, when every roster server's trusted operator lists the key", () => {
    expect(signingKeyTrust(read([trusting("A"), trusting("B"), trusting("C")]), OPERATOR, SIGNER)).toMatchObject({
      status: "False",
      reason: "SignerTrusted",
      message: `all 3 servers trust signing key ${SIGNER}`,
    });
  });

  it("is True, UntrustedSigner, naming the key and how many servers lack it", () => {
    const condition = signingKeyTrust(
      read([trusting("A"), trusting("B", []), trusting("C", ["OTHER"])]),
      OPERATOR,
      SIGNER,
    );
    expect(condition).toMatchObject({ status: "True", reason: "UntrustedSigner" });
    expect(condition?.message).toContain(
      `signing key ${SIGNER} is not listed by the operator JWT 2 of 3 servers trust`,
    );
  });

  it("is Unknown, TrustUnknown, when a server does not answer VARZ or trusts no operator JWT of the key", () => {
    expect(signingKeyTrust(read([trusting("A")], ["A", "B"]), OPERATOR, SIGNER)).toMatchObject({
      status: "Unknown",
      reason: "TrustUnknown",
      message: `1 of 2 servers did not answer VARZ, 0 trust no operator JWT of ${OPERATOR}`,
    });
    expect(signingKeyTrust(read([trusting("A"), { id: "B", operators: [] }]), OPERATOR, SIGNER)?.reason).toBe(
      "TrustUnknown",
    );
    expect(signingKeyTrust({ kind: "unreachable", message: "timeout" }, OPERATOR, SIGNER)?.reason).toBe("TrustUnknown");
  });

  it("is not set without a system connection, and the operator's own key needs no listing", () => {
    expect(signingKeyTrust({ kind: "off" }, OPERATOR, SIGNER)).toBeUndefined();
    expect(signingKeyTrust(read([trusting("A", [])]), OPERATOR, OPERATOR)?.reason).toBe("SignerTrusted");
  });
});

describe("an account signed by a key some server does not trust", () => {
  const account = createAccount();
  const signed = (signer = signerKeys) => encodeAccount("app", account, {}, { signer });
  const operatorReading = (status: string, reason: string, message: string) =>
    ({ status: { conditions: [{ type: "SigningKeyUntrusted", status, reason, message }] } }) as unknown as NatsOperator;
  const behind: ConditionUpdate = {
    type: "Distributed",
    status: "False",
    reason: "PushRefused",
    message: "1 of 3 servers hold this JWT",
  };
  const untrusted = operatorReading(
    "True",
    "UntrustedSigner",
    `signing key ${SIGNER} is not listed by the operator JWT 2 of 3 servers trust`,
  );

  it("reads Distributed=False, UntrustedSigner, with the count and the operator's word", async () => {
    expect(distributedUnderTrust(behind, await signed(), untrusted)).toEqual({
      type: "Distributed",
      status: "False",
      reason: "UntrustedSigner",
      message: `1 of 3 servers hold this JWT; signing key ${SIGNER} is not listed by the operator JWT 2 of 3 servers trust`,
    });
  });

  it("keeps its own reason when signed by another key, when the operator trusts the signer, or when every server holds it", async () => {
    expect(distributedUnderTrust(behind, await signed(createOperator()), untrusted)).toBe(behind);
    const trusted = operatorReading("False", "SignerTrusted", `all 3 servers trust signing key ${SIGNER}`);
    expect(distributedUnderTrust(behind, await signed(), trusted)).toBe(behind);
    const everywhere: ConditionUpdate = { ...behind, status: "True", reason: "AllServersCurrent" };
    expect(distributedUnderTrust(everywhere, await signed(), untrusted)).toBe(everywhere);
  });
});
