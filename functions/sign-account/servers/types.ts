// The vocabulary of what the servers hold and were sent, shared by the reads over the system
// connection and the decisions about distribution, deletes and drains.

/** What the servers answered a push: acknowledgements, and each refusal as "<server>: <why>". */
export interface PushOutcome {
  at: string;
  acknowledged: number;
  refused: string[];
}

export type DistributionReading =
  /** No system connection is configured: nothing is pushed, nothing is asked. */
  | { kind: "off" }
  /** Configured, but the connection or the servers could not be reached. */
  | { kind: "unreachable"; message: string }
  | {
      kind: "read";
      /** Server IDs that answered STATSZ. */
      roster: string[];
      /** When that STATSZ poll was made: the several reads of one delivery share one poll. */
      polledAt: string;
      /** The JWT each answering server holds for the account ("" for none); empty before the account has a key. */
      holdings: string[];
      /** A push made earlier in this delivery, observed again after it. */
      lastPush?: PushOutcome;
      /** A delete request sent earlier in this delivery, observed again after it. */
      lastDelete?: PushOutcome;
    };
