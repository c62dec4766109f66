// Deterministic data for the corpus: a seeded PRNG (mulberry32), smooth-ish series, labels.

export interface Body {
  chart: Record<string, unknown>;
  width: number;
  height: number;
  backgroundColor: string;
}

export interface Entry {
  name: string;
  /** The POST /v1/chart body. */
  body: Body;
  /** For a config with callbacks: the same config without them. */
  plain?: Body;
}

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n values in [lo, hi], a random walk so lines look like real metrics; 1 decimal. */
export function series(r: () => number, n: number, lo: number, hi: number): number[] {
  const out: number[] = [];
  let v = lo + (hi - lo) * r();
  for (let i = 0; i < n; i++) {
    v = Math.min(hi, Math.max(lo, v + (hi - lo) * (r() - 0.5) * 0.3));
    out.push(Math.round(v * 10) / 10);
  }
  return out;
}

/** n labels: the names cycled, with a number once they repeat ("Jan", ..., "Dec", "Jan 2", ...). */
export function labelsOf(n: number, names: string[]): string[] {
  return Array.from({ length: n }, (_, i) => {
    const round = Math.floor(i / names.length);
    const name = names[i % names.length]!;
    return round === 0 && names.length > 1 ? name : `${name} ${round + 1}`;
  });
}
