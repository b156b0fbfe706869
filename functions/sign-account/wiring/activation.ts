// Activation tokens (pure): what a private export's token for one importer says, and the token an
// importer's JWT already carries when it still says that, so an unchanged import is not re-signed.
import { jsonEqual } from "../../../shared/kube/index.ts";
import type { Claims, SignRequest } from "../jwt/claims.ts";
import { readJWT } from "../jwt/compare.ts";

/** An activation token for `importer`, signed by the exporter's active signing key; never expires. */
export function activationRequest(
  exportName: string,
  subject: string,
  type: "Stream" | "Service",
  importer: string,
  exporter: { identity: string; signer: string },
): SignRequest {
  const claims: Claims = {
    name: exportName,
    sub: importer,
    nats: {
      subject,
      kind: type === "Service" ? "service" : "stream",
      issuer_account: exporter.identity,
      type: "activation",
      version: 2,
    },
  };
  return { claims, signer: exporter.signer, ttlSeconds: 0 };
}

/** Whether a token (verified, never expiring) says what `request` would sign. */
export function tokenSays(token: string | undefined, request: SignRequest): boolean {
  const read = readJWT(token);
  if (!read || read.exp !== undefined) return false;
  const { name, sub, nats, iss } = read;
  return jsonEqual({ name, sub, nats, iss }, { ...request.claims, iss: request.signer });
}

/**
 * The token of an import of `previousJwt` (an account JWT) that says what `request` would sign:
 * same importer, export, subject, type, exporter and signer; undefined when there is none.
 */
export function heldActivation(previousJwt: string | undefined, request: SignRequest): string | undefined {
  const imports = readJWT(previousJwt)?.nats["imports"];
  if (!Array.isArray(imports)) return undefined;
  const held = (imports as { token?: unknown }[]).find(
    (i) => typeof i.token === "string" && tokenSays(i.token, request),
  );
  return held?.token as string | undefined;
}
