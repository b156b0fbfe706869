import { describe, expect, it } from "@jest/globals";
import { X509Certificate } from "node:crypto";
import { caUsable, issueCa, issueLeaf, leafRenewalReason, routeDnsNames } from "./route-certificates.ts";

const now = new Date("2026-12-01T00:00:00Z");
const day = 24 * 3600 * 1000;

describe("route certificates", () => {
  const ca = issueCa("demo", now);
  const leaf = issueLeaf("demo", "nats-system", ca, now);

  it("issue a CA that Node reads as a CA", () => {
    const certificate = new X509Certificate(ca.certificatePem);
    expect(certificate.ca).toBe(true);
    expect(certificate.subject).toContain("demo route CA");
  });

  it("issue a leaf for the headless Service's wildcard names, signed by the CA", () => {
    const certificate = new X509Certificate(leaf.certificatePem);
    expect(certificate.verify(new X509Certificate(ca.certificatePem).publicKey)).toBe(true);
    expect(certificate.subjectAltName).toBe(
      routeDnsNames("demo", "nats-system")
        .map((n) => `DNS:${n}`)
        .join(", "),
    );
    expect(certificate.checkHost("demo-1-0.demo-headless.nats-system.svc")).toBe("*.demo-headless.nats-system.svc");
    expect(certificate.keyUsage).toEqual(expect.arrayContaining(["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"]));
  });

  it("make the leaf valid for one year", () => {
    const certificate = new X509Certificate(leaf.certificatePem);
    expect(Math.round((new Date(certificate.validTo).getTime() - now.getTime()) / day)).toBe(365);
  });

  it("keep a valid stored CA", () => {
    expect(caUsable(ca, now)).toBe(true);
  });

  it("replace a CA that has expired or does not match its key", () => {
    expect(caUsable(ca, new Date(now.getTime() + 11 * 365 * day))).toBe(false);
    expect(caUsable({ ...ca, keyPem: issueCa("demo", now).keyPem }, now)).toBe(false);
  });

  it("keep the leaf while more than a third of its life remains", () => {
    expect(leafRenewalReason(ca, leaf, new Date(now.getTime() + 200 * day))).toBeUndefined();
  });

  it("renew the leaf once a third of its life remains", () => {
    expect(leafRenewalReason(ca, leaf, new Date(now.getTime() + 250 * day))).toMatch(/third/);
  });

  it("renew a leaf another CA issued", () => {
    const other = issueCa("demo", now);
    expect(leafRenewalReason(other, leaf, now)).toMatch(/not issued by/);
  });
});
