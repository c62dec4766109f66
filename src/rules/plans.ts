// The plan table as data: every limit check reads it. "Pro" is accepted as another name of Growth.
export type PlanName = 'trial' | 'starter' | 'growth' | 'enterprise';
export type Format = 'png' | 'svg' | 'pdf';

export interface Plan {
  readonly name: PlanName;
  /** Monthly generations; trial: total over the key's life. null = unlimited (enterprise custom). */
  readonly chartsPerPeriod: number | null;
  readonly maxKeys: number | null;
  readonly formats: readonly Format[];
  readonly maxSide: number;
  readonly maxPixels: number;
  readonly cacheDays: number | null;
  readonly analyticsRetentionDays: number | null;
  readonly analytics: 'none' | 'basic' | 'advanced' | 'custom';
  /** Monthly price in pence (GBP); null = contact sales. */
  readonly monthlyPricePence: number | null;
  /** Overage per started 1,000 charts, pence; null = no overage (hard stop or custom). */
  readonly overagePer1000Pence: number | null;
  readonly rate: { readonly perMinute: number; readonly perHour: number; readonly burst: number };
}

const M = 1_000_000;

export const PLANS: Readonly<Record<PlanName, Plan>> = Object.freeze({
  trial: {
    name: 'trial', chartsPerPeriod: 100, maxKeys: 1, formats: ['png', 'svg'], maxSide: 2000, maxPixels: 4 * M,
    cacheDays: 30, analyticsRetentionDays: 30, analytics: 'none', monthlyPricePence: 0, overagePer1000Pence: null,
    rate: { perMinute: 10, perHour: 100, burst: 20 },
  },
  starter: {
    name: 'starter', chartsPerPeriod: 100_000, maxKeys: 5, formats: ['png', 'svg'], maxSide: 2000, maxPixels: 4 * M,
    cacheDays: 90, analyticsRetentionDays: 365, analytics: 'basic', monthlyPricePence: 3000, overagePer1000Pence: 300,
    rate: { perMinute: 60, perHour: 1000, burst: 120 },
  },
  growth: {
    name: 'growth', chartsPerPeriod: 1_000_000, maxKeys: 25, formats: ['png', 'svg'], maxSide: 4000, maxPixels: 16 * M,
    cacheDays: 365, analyticsRetentionDays: 3 * 365, analytics: 'advanced', monthlyPricePence: 15000, overagePer1000Pence: 100,
    rate: { perMinute: 300, perHour: 10_000, burst: 600 },
  },
  enterprise: {
    name: 'enterprise', chartsPerPeriod: null, maxKeys: null, formats: ['png', 'svg', 'pdf'], maxSide: 8000, maxPixels: 64 * M,
    cacheDays: null, analyticsRetentionDays: null, analytics: 'custom', monthlyPricePence: null, overagePer1000Pence: null,
    rate: { perMinute: 1200, perHour: 50_000, burst: 2400 },
  },
});

/** Accepts "pro" as Growth; returns null for an unknown name. */
export function parsePlanName(name: string): PlanName | null {
  const n = name.trim().toLowerCase();
  if (n === 'pro') return 'growth';
  return n in PLANS ? (n as PlanName) : null;
}
