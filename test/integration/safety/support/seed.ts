/**
 * A seeded source of numbers in [0, 1) (mulberry32): the same seed gives the same faults, so a
 * failing run is replayed by its seed.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** This run's seed: NATS_OPERATOR_SAFETY_SEED to replay one, else a fresh one. */
export const seedOfRun = (): number =>
  Number(process.env["NATS_OPERATOR_SAFETY_SEED"] ?? Math.floor(Math.random() * 2 ** 31));
