// The calibration of the recommended tolerance (docs/golden-tests.md): committed pairs drawn for
// real by scripts/golden-calibration.ts (the same chart from Chromium started another way, or a
// config with a real regression) and what the recommended settings say of each. A change in the
// comparison that moves any of these verdicts fails here.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareImages, EXACT, type Box } from '../../src/golden/compare.js';
import { RECOMMENDED_FLAGS, toleranceFromFlags } from '../../src/golden/options.js';

const DIR = 'test/golden-calibration';
interface Pair {
  pair: string;
  kind: 'benign' | 'harmful';
  how: string;
  chartArea: Box;
}
const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as { pairs: Pair[]; identical: string[] };
const images = (p: Pair) => [readFileSync(join(DIR, `${p.pair}.golden.png`)), readFileSync(join(DIR, `${p.pair}.actual.png`))] as const;

/** pass or fail under the recommended flags, and with only the golden's chart area compared. */
const EXPECTED: Record<string, [whole: 'pass' | 'fail', chartAreaOnly: 'pass' | 'fail']> = {
  // harmful: every geometric change fails; a colour change below the 0.1 threshold passes (docs say so)
  'bar-1px-taller': ['fail', 'fail'],
  'bar-tick-label-gone': ['fail', 'pass'],
  'bar-colour-changed': ['pass', 'pass'],
  'bar-legend-swapped': ['fail', 'pass'],
  'line-point-moved': ['fail', 'fail'],
  'doughnut-legend-swapped': ['fail', 'pass'],
  // benign: another rasteriser (SwiftShader's GPU canvas) passes; unhinted text passes in the
  // chart area only; full and medium hinting move the layout (other text widths) and fail
  'bar-gpu-canvas': ['pass', 'pass'],
  'line-gpu-canvas': ['pass', 'pass'],
  'doughnut-gpu-canvas': ['pass', 'pass'],
  'bar-hinting-none': ['fail', 'pass'],
  'line-hinting-none': ['fail', 'pass'],
  'doughnut-hinting-none': ['fail', 'pass'],
  'bar-hinting-full': ['fail', 'fail'],
  'line-hinting-full': ['fail', 'fail'],
  'doughnut-hinting-full': ['fail', 'fail'],
  'bar-hinting-medium': ['fail', 'fail'],
  'line-hinting-medium': ['fail', 'fail'],
  'doughnut-hinting-medium': ['fail', 'fail'],
};

describe('golden tolerance calibration (test/golden-calibration)', () => {
  const recommended = toleranceFromFlags(RECOMMENDED_FLAGS);

  it('the recommended flags are --threshold 0.1 --max-diff-ratio 0.005 --max-diff-window 8:12', () => {
    expect(recommended).to.deep.equal({ threshold: 0.1, maxDiffRatio: 0.005, window: { size: 8, max: 12 }, ignoreAntialiasing: false });
  });

  it('every pair is a real difference: exact comparison fails all of them', () => {
    expect(manifest.pairs.map((p) => p.pair).sort()).to.deep.equal(Object.keys(EXPECTED).sort());
    for (const p of manifest.pairs) {
      const [g, a] = images(p);
      expect(compareImages(g, a, 'png', EXACT).status, p.pair).to.equal('differs');
    }
  });

  for (const p of manifest.pairs) {
    const [whole, area] = EXPECTED[p.pair] ?? ['?', '?'];
    it(`${p.kind} ${p.pair} (${p.how.slice(0, 60)}): ${whole} under the recommended flags, ${area} with only the chart area`, () => {
      const [g, a] = images(p);
      const v = compareImages(g, a, 'png', recommended);
      expect(v.status === 'ok' ? 'pass' : 'fail', `${v.diffPixels} px, window ${v.worstWindow?.count}`).to.equal(whole);
      const o = compareImages(g, a, 'png', recommended, { only: [p.chartArea] });
      expect(o.status === 'ok' ? 'pass' : 'fail', `${o.diffPixels} px, window ${o.worstWindow?.count}`).to.equal(area);
    });
  }

  it('ignoring anti-aliasing alone would pass the bar 1 px taller: its 92 differing pixels are all taken for anti-aliasing', () => {
    const p = manifest.pairs.find((x) => x.pair === 'bar-1px-taller')!;
    const [g, a] = images(p);
    const v = compareImages(g, a, 'png', { ...recommended, ignoreAntialiasing: true });
    expect(v).to.deep.include({ status: 'ok', diffPixels: 0, aaPixels: 92 });
  });
});
