// Billing arithmetic, pure: fees, overage, proration, calendar months and the period a moment falls in.
import { expect } from 'chai';
import { addMonthsUtc, monthlyCharts, overagePence, periodAt, planFeePence, prorationPence, volumeDiscount } from '../../src/rules/pricing.js';
import { analyticsCutoff, analyticsRetentionDays, billingCutoff } from '../../src/rules/retention.js';
import { DAY } from '../helpers/clock.js';

describe('billing arithmetic', () => {
  it('annual = 10 monthly fees; Pro/Growth 150 GBP, Starter 30 GBP', () => {
    expect(planFeePence('starter', 'monthly')).to.equal(3000);
    expect(planFeePence('starter', 'annual')).to.equal(30000);
    expect(planFeePence('growth', 'monthly')).to.equal(15000);
    expect(planFeePence('growth', 'annual')).to.equal(150000);
    expect(planFeePence('enterprise', 'monthly')).to.equal(0);
    expect(planFeePence('enterprise', 'monthly', 99900)).to.equal(99900);
  });

  it('overage per started 1,000 charts', () => {
    expect(overagePence(100_000, 100_000, 300).pence).to.equal(0);
    expect(overagePence(100_001, 100_000, 300)).to.include({ over: 1, units: 1, pence: 300 });
    expect(overagePence(101_000, 100_000, 300)).to.include({ units: 1, pence: 300 });
    expect(overagePence(101_001, 100_000, 300)).to.include({ units: 2, pence: 600 });
    expect(overagePence(1_002_500, 1_000_000, 100)).to.include({ units: 3, pence: 300 });
    expect(overagePence(5, null, null).pence).to.equal(0);
  });

  it('proration by remaining (started) days', () => {
    const start = Date.UTC(2025, 3, 1);
    const end = addMonthsUtc(start, 1); // 30 days
    expect(prorationPence(12000, start, end, start + 15 * DAY)).to.deep.equal({ pence: 6000, remainingDays: 15, periodDays: 30 });
    expect(prorationPence(12000, start, end, start + 15 * DAY - 1000).remainingDays).to.equal(16); // a started day counts
    expect(prorationPence(12000, start, end, start + 15 * DAY + 1000).remainingDays).to.equal(15);
    expect(prorationPence(12000, start, end, start).pence).to.equal(12000);
    expect(prorationPence(12000, start, end, end).pence).to.equal(0);
  });

  it('calendar months in UTC, clamping the day', () => {
    expect(new Date(addMonthsUtc(Date.UTC(2025, 0, 31, 9), 1)).toISOString()).to.equal('2025-02-28T09:00:00.000Z');
    expect(new Date(addMonthsUtc(Date.UTC(2024, 0, 31), 1)).toISOString()).to.equal('2024-02-29T00:00:00.000Z');
    expect(new Date(addMonthsUtc(Date.UTC(2025, 11, 15), 1)).toISOString()).to.equal('2026-01-15T00:00:00.000Z');
    expect(new Date(addMonthsUtc(Date.UTC(2025, 5, 1), 12)).toISOString()).to.equal('2026-06-01T00:00:00.000Z');
  });

  describe('the period a moment falls in', () => {
    const start = Date.UTC(2025, 0, 31);
    const open = { start, end: addMonthsUtc(start, 1), nextCycle: 'monthly' as const, last: false };

    it('is the open period until its end, the next one from its end', () => {
      expect(periodAt(open, open.end - 1)).to.deep.equal({ start, end: open.end });
      expect(periodAt(open, open.end)).to.deep.equal({ start: open.end, end: addMonthsUtc(open.end, 1) });
    });

    it('walks missed periods one by one as closing does (31 Jan, 28 Feb, 28 Mar), not from the first start', () => {
      const p = periodAt(open, Date.UTC(2025, 2, 30));
      expect(new Date(p.start).toISOString()).to.equal('2025-03-28T00:00:00.000Z');
      expect(new Date(p.end).toISOString()).to.equal('2025-04-28T00:00:00.000Z');
    });

    it('uses the next cycle after the open period, and stops after a last period', () => {
      const annual = periodAt({ ...open, nextCycle: 'annual' }, open.end + DAY);
      expect(annual).to.deep.equal({ start: open.end, end: addMonthsUtc(open.end, 12) });
      const last = periodAt({ ...open, last: true }, Date.UTC(2025, 5, 1));
      expect(last).to.deep.equal({ start: open.end, end: addMonthsUtc(open.end, 1) });
    });
  });

  describe('enterprise volume discounts, on the whole charge by the tier of the monthly charts', () => {
    // Tiers read "500K-1M 10%, 1M-5M 20%, 5M-10M 30%, above 10M custom": each tier includes its
    // lower bound, so a round number opens the next tier (1,000,000 is 1M-5M, 5,000,000 is
    // 5M-10M); "above 10M" is strictly above, so 10,000,000 is still 5M-10M.
    const CHARGE = 1_000_000; // £10,000.00
    const cases: Array<[number, string | null, number]> = [
      [499_999, null, 0], // below the first tier
      [500_000, '500K-1M', 10], // the first tier's lower bound
      [500_001, '500K-1M', 10],
      [999_999, '500K-1M', 10],
      [1_000_000, '1M-5M', 20], // 1M opens 1M-5M
      [1_000_001, '1M-5M', 20],
      [4_999_999, '1M-5M', 20],
      [5_000_000, '5M-10M', 30], // 5M opens 5M-10M
      [5_000_001, '5M-10M', 30],
      [9_999_999, '5M-10M', 30],
      [10_000_000, '5M-10M', 30], // not above 10M yet
      [10_000_001, 'above 10M', 45], // the account's custom rate (45% here)
    ];
    for (const [charts, label, percent] of cases) {
      it(`${charts.toLocaleString('en-GB')} charts: ${label ?? 'no discount'}`, () => {
        const d = volumeDiscount(charts, CHARGE, 45);
        if (label === null) return expect(d).to.equal(null);
        expect(d).to.deep.equal({ label, percent, pence: -(CHARGE * percent) / 100 });
      });
    }

    it('above 10M without a custom rate keeps the 5M-10M rate (more volume never costs more); nothing charged, nothing discounted', () => {
      expect(volumeDiscount(10_000_001, CHARGE, null)).to.deep.equal({ label: 'above 10M', percent: 30, pence: -300_000 });
      expect(volumeDiscount(10_000_001, CHARGE, 0)).to.equal(null);
      expect(volumeDiscount(2_000_000, 0, null)).to.equal(null);
      expect(volumeDiscount(500_000, 5, null)!.pence).to.equal(-1); // whole pence, rounded
    });

    it('an annual period is tiered by its charts per month', () => {
      expect(monthlyCharts(12_000_000, 'annual')).to.equal(1_000_000);
      expect(monthlyCharts(5_999_999, 'annual')).to.equal(499_999);
      expect(monthlyCharts(700_000, 'monthly')).to.equal(700_000);
    });
  });

  describe('retention windows', () => {
    it('per plan: trial 30 days, starter 1 year, growth 3 years, enterprise its own or for good', () => {
      expect(analyticsRetentionDays('trial', 5)).to.equal(30);
      expect(analyticsRetentionDays('starter', null)).to.equal(365);
      expect(analyticsRetentionDays('growth', null)).to.equal(1095);
      expect(analyticsRetentionDays('enterprise', null)).to.equal(null);
      expect(analyticsRetentionDays('enterprise', 90)).to.equal(90);
    });

    it('the last N UTC days, today included, are kept; billing records seven calendar years', () => {
      const now = Date.UTC(2030, 0, 10, 15);
      const today = Math.floor(now / DAY);
      expect(analyticsCutoff(now, 30)).to.deep.equal({ day: today - 29, at: (today - 29) * DAY });
      expect(analyticsCutoff(now, 1)).to.deep.equal({ day: today, at: today * DAY });
      expect(new Date(billingCutoff(now)).toISOString()).to.equal('2023-01-10T15:00:00.000Z');
      expect(new Date(billingCutoff(Date.UTC(2031, 1, 28))).toISOString()).to.equal('2024-02-28T00:00:00.000Z');
    });
  });
});
