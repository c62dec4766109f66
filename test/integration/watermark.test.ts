// The open-endpoint / pk_test_ watermark: legible on any background (a light
// plate behind dark text) and drawn in a strip of its own at the bottom, so that it never
// covers an axis label. A blank watermark keeps the strip and draws nothing: the chart's own
// drawing is what is left there.
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { decodePng, pixel } from '../helpers/images.js';
import type { PNG } from 'pngjs';
import { bytes } from '../helpers/client.js';

const W = 480;
const H = 270;
const STRIP = 14;

const CHART = {
  type: 'bar',
  data: { labels: ['Q1', 'Q2', 'Q3', 'Q4'], datasets: [{ label: 'Revenue', data: [12, 19, 7, 15], backgroundColor: '#3B82F6' }] },
  options: { plugins: { title: { display: true, text: 'Open endpoint' } } },
};
// x labels long enough to rotate down into the bottom-right corner
const CORNER = {
  type: 'bar',
  data: {
    labels: ['Q1', 'Q2', 'Q3', 'A very long last label that reaches the bottom-right corner'],
    datasets: [{ label: 'Revenue', data: [12, 19, 7, 15], backgroundColor: '#3B82F6' }],
  },
  options: { plugins: { legend: { display: false } }, scales: { x: { ticks: { maxRotation: 90, minRotation: 60 } } } },
};

const BACKGROUNDS: Record<string, [number, number, number]> = { white: [255, 255, 255], black: [0, 0, 0], '#808080': [128, 128, 128] };

/** Pixels of the bottom strip whose colour is far (> 96 in a channel) from the background. */
function farFromBackground(png: PNG, bg: [number, number, number]): number {
  let n = 0;
  for (let y = H - STRIP; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const p = pixel(png, x, y);
      if (Math.max(Math.abs(p[0] - bg[0]), Math.abs(p[1] - bg[1]), Math.abs(p[2] - bg[2])) > 96) n++;
    }
  }
  return n;
}

describe('watermark: legible, in space of its own', function () {
  this.timeout(120000);
  let s: TestServer;

  before(async () => (s = await startTestServer({ poolSize: 1, openRendersPerHour: 1000 })));
  after(() => s?.stop());

  async function render(chart: Record<string, unknown>, background: string, watermark: string): Promise<PNG> {
    const res = await s.deps.pool.render({ config: chart, width: W, height: H, format: 'png', backgroundColor: background, allowFunctions: false, watermark });
    return decodePng(Buffer.from(res.data, 'base64'));
  }

  for (const [bgName, bg] of Object.entries(BACKGROUNDS)) {
    for (const [chartName, chart] of [['a bar chart', CHART], ['x labels reaching the bottom-right corner', CORNER]] as const) {
      it(`on ${bgName}, ${chartName}: the chart leaves the strip empty and the watermark stands out there`, async () => {
        const blank = await render(chart, bgName, '         ');
        for (let y = H - STRIP; y < H; y++) {
          for (let x = 0; x < W; x++) {
            expect(pixel(blank, x, y).slice(0, 3), `chart drawing at (${x}, ${y}), inside the watermark strip`).to.deep.equal(bg);
          }
        }
        const marked = await render(chart, bgName, 'chartshot');
        const far = farFromBackground(marked, bg);
        expect(far, `${far} pixels of the watermark differ clearly from the background`).to.be.at.least(80);
        // everything above the strip is the same chart, untouched by the watermark
        let differing = 0;
        for (let i = 0; i < W * (H - STRIP) * 4; i++) if (marked.data[i] !== blank.data[i]) differing++;
        expect(differing).to.equal(0);
      });
    }
  }

  it('at devicePixelRatio 2: the same place, twice the pixels (bottom-right of the strip, nothing above it)', async () => {
    const at2 = async (watermark: string) => {
      const res = await s.deps.pool.render({ config: CHART, width: W, height: H, devicePixelRatio: 2, format: 'png', backgroundColor: 'white', allowFunctions: false, watermark });
      return decodePng(Buffer.from(res.data, 'base64'));
    };
    const blank = await at2('         ');
    const marked = await at2('chartshot');
    expect([marked.width, marked.height]).to.deep.equal([2 * W, 2 * H]);
    let inside = 0;
    for (let y = 0; y < 2 * H; y++) {
      for (let x = 0; x < 2 * W; x++) {
        const i = (y * 2 * W + x) * 4;
        if (marked.data[i] === blank.data[i] && marked.data[i + 1] === blank.data[i + 1] && marked.data[i + 2] === blank.data[i + 2]) continue;
        expect(y >= 2 * (H - STRIP) && x >= 2 * (W - 80), `watermark pixel at (${x}, ${y}) outside the bottom-right of the strip`).to.equal(true);
        inside++;
      }
    }
    expect(inside, 'watermark pixels drawn').to.be.at.least(4 * 80);
  });

  it('the open endpoint with bkg=#808080: clearly visible, bottom-right', async () => {
    const q = new URLSearchParams({ c: JSON.stringify(CHART), w: String(W), h: String(H), bkg: '#808080' });
    const res = await fetch(`${s.url}/v1/open/chart?${q}`);
    expect(res.status).to.equal(200);
    const png = decodePng(await bytes(res));
    expect(farFromBackground(png, [128, 128, 128])).to.be.at.least(80);
    // small: inside the right-hand 80 pixels of the strip
    for (let y = H - STRIP; y < H; y++) {
      for (let x = 0; x < W - 80; x++) expect(pixel(png, x, y).slice(0, 3)).to.deep.equal([128, 128, 128]);
    }
  });
});
