// Self-signed route certificates with node:crypto alone: an ECDSA P-256 CA and a leaf it signs.
import { X509Certificate, createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import {
  bitString,
  boolean,
  explicit,
  objectIdentifier,
  octetString,
  sequence,
  set,
  smallInteger,
  tlv,
  time,
  unsignedInteger,
  utf8String,
} from "./der.ts";

const OID = {
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
} as const;

export interface IssuedCertificate {
  certificatePem: string;
  keyPem: string;
}

export interface CertificateRequest {
  commonName: string;
  notBefore: Date;
  notAfter: Date;
  isCa: boolean;
  dnsNames?: readonly string[];
}

const name = (commonName: string) => sequence(set(sequence(objectIdentifier(OID.commonName), utf8String(commonName))));
const extension = (oid: string, critical: boolean, value: Buffer) =>
  sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));

function extensions(request: CertificateRequest): Buffer {
  const list = [
    extension(OID.basicConstraints, true, request.isCa ? sequence(boolean(true)) : sequence()),
    // digitalSignature, plus keyCertSign and cRLSign for the CA.
    extension(OID.keyUsage, true, request.isCa ? bitString(Buffer.from([0x86]), 1) : bitString(Buffer.from([0x80]), 7)),
  ];
  if (!request.isCa) {
    list.push(
      extension(OID.extKeyUsage, false, sequence(objectIdentifier(OID.serverAuth), objectIdentifier(OID.clientAuth))),
    );
    const names = (request.dnsNames ?? []).map((dns) => tlv(0x82, Buffer.from(dns, "ascii")));
    if (names.length > 0) list.push(extension(OID.subjectAltName, false, sequence(...names)));
  }
  return explicit(3, sequence(...list));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

/**
 * Issues a certificate for a fresh P-256 key, signed by `issuer` (or by itself when
 * no issuer is given, for a CA).
 */
export function issueCertificate(
  request: CertificateRequest,
  issuer?: { commonName: string; key: KeyObject },
): IssuedCertificate {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const algorithm = sequence(objectIdentifier(OID.ecdsaWithSha256));
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(serial),
    algorithm,
    name(issuer?.commonName ?? request.commonName),
    sequence(time(request.notBefore), time(request.notAfter)),
    name(request.commonName),
    publicKey.export({ type: "spki", format: "der" }),
    extensions(request),
  );
  const signature = sign("sha256", tbs, issuer?.key ?? privateKey);
  const certificate = sequence(tbs, algorithm, bitString(signature));
  return {
    certificatePem: pem("CERTIFICATE", certificate),
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

export const privateKeyOf = (keyPem: string): KeyObject => createPrivateKey(keyPem);

/** The certificate's expiry, or undefined when the PEM cannot be read. */
export function readCertificate(certificatePem: string): X509Certificate | undefined {
  try {
    return new X509Certificate(certificatePem);
  } catch {
    return undefined;
  }
}
