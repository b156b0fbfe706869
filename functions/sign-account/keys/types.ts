// The signing keys of an operator or account, as every step of keys/ speaks of them.
import type { Keys } from "../../../shared/api/index.ts";

export type SigningKeyScope = NonNullable<NonNullable<Keys["signing"]>[number]["scope"]>;

export interface SigningKey {
  publicKey: string;
  retiring: boolean;
  /** A scoped key signs only users of its role, and neither accounts nor activation tokens. */
  scope?: SigningKeyScope;
}
