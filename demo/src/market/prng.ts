/**
 * A small seeded pseudo-random source, so the simulated market is the same on
 * every run with the same seed (tests and screenshots compare like with like).
 */

/** A seeded pseudo-random source. */
export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal (mean 0, deviation 1). */
  gaussian(): number;
}

/** Mixes strings and numbers into one 32-bit seed (FNV-1a). */
export function hashSeed(...parts: ReadonlyArray<string | number>): number {
  let hash = 0x811c9dc5;
  for (const part of parts) {
    const text = `${String(part)}\u0000`;
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
  }
  return hash >>> 0;
}

/** A mulberry32 generator: tiny, fast and good enough for a market simulation. */
export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  let spare: number | null = null;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const gaussian = (): number => {
    if (spare !== null) {
      const value = spare;
      spare = null;
      return value;
    }
    // Box-Muller gives two normals per pair of uniforms; keep the second.
    const u = Math.max(next(), Number.EPSILON);
    const v = next();
    const radius = Math.sqrt(-2 * Math.log(u));
    spare = radius * Math.sin(2 * Math.PI * v);
    return radius * Math.cos(2 * Math.PI * v);
  };
  return { next, gaussian };
}
