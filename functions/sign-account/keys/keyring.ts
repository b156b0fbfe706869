// Seeds read from Secrets, held where no log line, status, event or decision can print them: the
// keyring is passed from observe to act beside the decision, and only public keys leave it.
import { fromSeed, type KeyPair } from "@nats-io/jwt";

/** What a seed decodes to, or why it does not. */
export type SeedReading = { ok: true; publicKey: string } | { ok: false; message: string };

export class Keyring {
  readonly #pairs = new Map<string, KeyPair>();

  /**
   * Adds a seed whose public key must start with `prefix` (O operator, A account, U user).
   * The message of a refusal never repeats the seed.
   */
  add(seed: string, prefix: "O" | "A" | "U"): SeedReading {
    let pair: KeyPair;
    try {
      pair = fromSeed(new TextEncoder().encode(seed.trim()));
    } catch {
      return { ok: false, message: "is not an nkey seed" };
    }
    const publicKey = pair.getPublicKey();
    if (!publicKey.startsWith(prefix))
      return { ok: false, message: `holds a seed of the wrong kind (${publicKey.slice(0, 1)}, not ${prefix})` };
    this.#pairs.set(publicKey, pair);
    return { ok: true, publicKey };
  }

  /** Keeps a key pair made in this delivery (a generated user key). */
  keep(pair: KeyPair): string {
    const publicKey = pair.getPublicKey();
    this.#pairs.set(publicKey, pair);
    return publicKey;
  }

  has(publicKey: string): boolean {
    return this.#pairs.has(publicKey);
  }

  /** The key pair of a public key; throws when no seed of it was read (a bug, not bad input). */
  pair(publicKey: string): KeyPair {
    const pair = this.#pairs.get(publicKey);
    if (!pair) throw new Error(`no seed for ${publicKey} was read`);
    return pair;
  }

  /** Only the public keys, should anything print the keyring. */
  toJSON(): { publicKeys: string[] } {
    return { publicKeys: [...this.#pairs.keys()] };
  }
}
