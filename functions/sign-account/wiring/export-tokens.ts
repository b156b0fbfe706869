// Activation tokens an exporter publishes (pure): for each private export, one per importer it
// lists by public key (an account that has no resource here), signed by the account's active
// signing key into status.exports[].importers[].activationToken, for that account's owner to hand
// over. A token that still says the same is kept; a key that is not an account key gets none.
import { fromPublic } from "@nats-io/jwt";
import type { NatsAccountStatus } from "../../../shared/api/index.ts";
import { activationRequest, tokenSays } from "./activation.ts";
import type { SignRequest } from "../jwt/claims.ts";
import { concreteExports } from "./exports.ts";
import type { NatsAccount } from "../objects.ts";

export type ExportStatus = NonNullable<NatsAccountStatus["exports"]>[number];

/** A token act signs into status.exports[export].importers[publicKey].activationToken. */
export interface ExportToken {
  export: string;
  publicKey: string;
  request: SignRequest;
}

export interface ExportTokens {
  statuses: ExportStatus[];
  sign: ExportToken[];
  /** One line per importer key that cannot be given a token. */
  unsigned: string[];
}

const isAccountKey = (key: string): boolean => {
  if (!key.startsWith("A")) return false;
  try {
    fromPublic(key);
    return true;
  } catch {
    return false;
  }
};

export function exportTokens(
  account: NatsAccount,
  exporter: { identity: string; signer: string },
  previous: readonly ExportStatus[] | undefined,
): ExportTokens {
  const out: ExportTokens = { statuses: [], sign: [], unsigned: [] };
  for (const e of concreteExports(account.spec.exports)) {
    if (e.access !== "Private") continue;
    const keys = e.importers.flatMap((i) => (i.publicKey ? [i.publicKey] : []));
    if (keys.length === 0) continue;
    const importers: NonNullable<ExportStatus["importers"]> = [];
    for (const key of keys) {
      if (!isAccountKey(key)) {
        out.unsigned.push(`export ${e.name}: importer ${key} is not an account public key`);
        continue;
      }
      const request = activationRequest(e.name, e.subject, e.type, key, exporter);
      const held = previous
        ?.find((p) => p.name === e.name)
        ?.importers?.find((i) => i.publicKey === key)?.activationToken;
      if (held && tokenSays(held, request)) importers.push({ publicKey: key, activationToken: held });
      else {
        importers.push({ publicKey: key });
        out.sign.push({ export: e.name, publicKey: key, request });
      }
    }
    out.statuses.push({ name: e.name, importers });
  }
  return out;
}
