// Which operator signing keys each server trusts (A10): `$SYS.REQ.SERVER.PING.VARZ` answers
// carry `trusted_operators_claim`, each trusted operator JWT's claims with its `signing_keys`. An
// account JWT signed by a key a server's trusted operator does not list is refused by that server.
import { gatherReplies } from "../../../shared/nats/index.ts";
import { AUTH_CONTROLLER_INBOX, readRoster, type SystemLink } from "./system-connection.ts";

/** One server's trusted operators: each operator's key and the signing keys its JWT lists. */
export interface ServerTrust {
  id: string;
  /** Empty when the server's VARZ carries no operator JWT. */
  operators: { key: string; signing: string[] }[];
}

export type TrustReading =
  | { kind: "off" }
  | { kind: "unreachable"; message: string }
  /** `roster`: the servers that answered STATSZ; `servers`: those that answered VARZ. */
  | { kind: "read"; roster: string[]; servers: ServerTrust[] };

interface VarzAnswer {
  server?: { id?: string };
  data?: { trusted_operators_claim?: { sub?: string; nats?: { signing_keys?: unknown[] } }[] };
}

const keysOf = (listed: unknown[] | undefined): string[] =>
  (listed ?? []).flatMap((k) =>
    typeof k === "string" ? [k] : k && typeof k === "object" && "key" in k ? [String(k.key)] : [],
  );

/** What each roster server trusts, read through the system connection. */
export async function readTrust(link: SystemLink): Promise<TrustReading> {
  if (link.kind !== "up") return link;
  try {
    const roster = await readRoster(link);
    const answers = await gatherReplies<VarzAnswer>(
      link.nc,
      "$SYS.REQ.SERVER.PING.VARZ",
      {},
      { inboxPrefix: AUTH_CONTROLLER_INBOX, complete: (r) => r.length >= roster.length },
    );
    const servers = answers.flatMap((a): ServerTrust[] =>
      a.server?.id
        ? [
            {
              id: a.server.id,
              operators: (a.data?.trusted_operators_claim ?? []).map((o) => ({
                key: o.sub ?? "",
                signing: keysOf(o.nats?.signing_keys),
              })),
            },
          ]
        : [],
    );
    return { kind: "read", roster, servers };
  } catch (error) {
    return { kind: "unreachable", message: error instanceof Error ? error.message : String(error) };
  }
}
