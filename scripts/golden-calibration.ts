// Makes the committed image pairs that calibrate the recommended golden-test tolerance
// (test/golden-calibration/, docs/golden-tests.md): each pair is a golden and an actual image of
// the same chart drawn for real by Chromium with Chart.js 4 (the page's vendored build).
// Benign pairs: the same config drawn by Chromium started another way (rasterisation and font
// flags, fontconfig hinting and anti-aliasing). Harmful pairs: the same Chromium, a config with a
// real regression (a bar 1 px taller, a tick label gone, a colour changed, two legend items
// swapped, a point moved). The manifest says how each was made.
// Run: npm run build && node --import tsx scripts/golden-calibration.ts   (about a minute)
import puppeteer, { type Browser } from 'puppeteer-core';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';

const OUT = 'test/golden-calibration';
const CHARTJS = readFileSync('renderer-page/vendor/chart.umd.js', 'utf8');
const W = 800;
const H = 400;

type Cfg = Record<string, unknown>;
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
/** A drawn chart: its PNG, the y scale's pixels per unit, and its chart area (the golden's, for `only`). */
interface Drawn {
  png: Buffer;
  pxPerUnit: number;
  chartArea: Box;
}
const bar = (o: { data?: number[]; labels?: string[]; colour?: string; reverse?: boolean } = {}): Cfg => ({
  type: 'bar',
  data: {
    labels: o.labels ?? ['Q1', 'Q2', 'Q3', 'Q4', 'Q5', 'Q6'],
    datasets: [
      { label: 'Revenue', data: o.data ?? [62, 81, 37, 55, 70, 44], backgroundColor: o.colour ?? '#36a2eb' },
      { label: 'Costs', data: [40, 52, 30, 41, 38, 35], backgroundColor: '#ff6384' },
    ],
  },
  options: {
    scales: { y: { min: 0, max: 100 } },
    plugins: { title: { display: true, text: 'Quarterly revenue and costs' }, legend: { reverse: o.reverse ?? false } },
  },
});
const line = (o: { data?: number[] } = {}): Cfg => ({
  type: 'line',
  data: {
    labels: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug'],
    datasets: [
      { label: 'Visitors', data: o.data ?? [120, 190, 150, 240, 210, 280, 260, 310], borderColor: '#4bc0c0', tension: 0.3 },
      { label: 'Signups', data: [20, 35, 30, 50, 42, 61, 55, 70], borderColor: '#9966ff' },
    ],
  },
  options: { plugins: { title: { display: true, text: 'Traffic' } } },
});
const pie = (o: { reverse?: boolean } = {}): Cfg => ({
  type: 'doughnut',
  data: { labels: ['Chrome', 'Safari', 'Firefox', 'Edge'], datasets: [{ data: [61, 24, 9, 6], backgroundColor: ['#36a2eb', '#ff6384', '#ffcd56', '#4bc0c0'] }] },
  options: { plugins: { legend: { position: 'right', reverse: o.reverse ?? false } } },
});

/** Chromium started one way: its flags and, when set, a fontconfig file of its own. */
interface Variant {
  name: string;
  args: string[];
  fontconfig?: string;
  /** Drawn by the GPU process (SwiftShader) instead of Skia on the CPU: no --disable-gpu. */
  gpu?: boolean;
}

const BASE: Variant = { name: 'base', args: [] };
const fontconfig = (edits: string) => `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <match target="font">${edits}</match>
</fontconfig>
`;
const BENIGN: Variant[] = [
  { name: 'hinting-full', args: [], fontconfig: fontconfig('<edit name="hinting" mode="assign"><bool>true</bool></edit><edit name="hintstyle" mode="assign"><const>hintfull</const></edit>') },
  { name: 'hinting-none', args: [], fontconfig: fontconfig('<edit name="hinting" mode="assign"><bool>false</bool></edit><edit name="hintstyle" mode="assign"><const>hintnone</const></edit>') },
  { name: 'subpixel-rgba', args: [], fontconfig: fontconfig('<edit name="rgba" mode="assign"><const>rgb</const></edit><edit name="antialias" mode="assign"><bool>true</bool></edit>') },
  { name: 'hinting-medium', args: [], fontconfig: fontconfig('<edit name="hinting" mode="assign"><bool>true</bool></edit><edit name="hintstyle" mode="assign"><const>hintmedium</const></edit>') },
  { name: 'gpu-canvas', args: ['--enable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--enable-accelerated-2d-canvas'], gpu: true },
  { name: 'font-render-hinting-none', args: ['--font-render-hinting=none'] },
  { name: 'no-subpixel-positioning', args: ['--disable-font-subpixel-positioning'] },
  { name: 'lcd-text-off', args: ['--disable-lcd-text'] },
];

const HARMFUL: Array<{ name: string; golden: Cfg; actual: (pxPerUnit: number) => Cfg; what: string }> = [
  { name: 'bar-1px-taller', golden: bar(), actual: (u) => bar({ data: [62, 81 + 1 / u, 37, 55, 70, 44] }), what: 'one bar 1 px taller (its value up by one pixel of the scale)' },
  { name: 'bar-tick-label-gone', golden: bar(), actual: () => bar({ labels: ['Q1', 'Q2', 'Q3', '', 'Q5', 'Q6'] }), what: 'the x tick label Q4 gone' },
  { name: 'bar-colour-changed', golden: bar(), actual: () => bar({ colour: '#4b8fe2' }), what: 'the Revenue colour #36a2eb -> #4b8fe2 (another blue)' },
  { name: 'bar-legend-swapped', golden: bar(), actual: () => bar({ reverse: true }), what: 'the two legend items swapped (legend.reverse)' },
  { name: 'line-point-moved', golden: line(), actual: () => line({ data: [120, 190, 150, 240, 210, 280, 262, 310] }), what: 'one line point 260 -> 262 (about 1.5 px)' },
  { name: 'doughnut-legend-swapped', golden: pie(), actual: () => pie({ reverse: true }), what: 'the legend order reversed' },
];

/** Draws one config on a white canvas in the page: its PNG data URL and the y scale's pixels per unit. */
const DRAW = `function (cfg, w, h) {
  var canvas = document.createElement('canvas');
  canvas.style.width = w + 'px';
  canvas.style.height = h + 'px';
  canvas.width = w;
  canvas.height = h;
  document.body.appendChild(canvas);
  cfg.options = Object.assign({}, cfg.options, { animation: false, responsive: false, devicePixelRatio: 1 });
  cfg.plugins = [{ id: 'bg', beforeDraw: function (ch) { ch.ctx.save(); ch.ctx.fillStyle = 'white'; ch.ctx.fillRect(0, 0, w, h); ch.ctx.restore(); } }];
  var chart = new Chart(canvas, cfg);
  var y = chart.scales.y;
  var pxPerUnit = y ? Math.abs(y.getPixelForValue(1) - y.getPixelForValue(0)) : 0;
  var data = canvas.toDataURL('image/png');
  var a = chart.chartArea;
  var area = { x: Math.floor(a.left), y: Math.floor(a.top), width: Math.ceil(a.right) - Math.floor(a.left), height: Math.ceil(a.bottom) - Math.floor(a.top) };
  chart.destroy();
  canvas.remove();
  return { data: data, pxPerUnit: pxPerUnit, chartArea: area };
}`;

async function launch(v: Variant, chromiumPath: string, dir: string): Promise<Browser> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  if (v.fontconfig) {
    const file = join(dir, `${v.name}.conf`);
    writeFileSync(file, v.fontconfig);
    env.FONTCONFIG_FILE = file;
  }
  return puppeteer.launch({
    executablePath: chromiumPath,
    headless: true,
    env,
    args: ['--no-sandbox', ...(v.gpu ? [] : ['--disable-gpu']), '--no-first-run', '--disable-dev-shm-usage', `--user-data-dir=${join(dir, `profile-${v.name}`)}`, ...v.args],
  });
}

/** Draws configs on one page of `browser`: PNG bytes and the y scale's pixels per unit of each. */
async function draw(browser: Browser, configs: Cfg[]): Promise<Drawn[]> {
  const page = await browser.newPage();
  await page.setContent('<!doctype html><html><body style="margin:0"></body></html>');
  await page.addScriptTag({ content: CHARTJS });
  const out: Drawn[] = [];
  for (const cfg of configs) {
    // plain JavaScript text: tsx would add helpers to a function passed as code that the page lacks
    const r = (await page.evaluate(`(${DRAW})(${JSON.stringify(cfg)}, ${W}, ${H})`)) as { data: string; pxPerUnit: number; chartArea: Box };
    out.push({ png: Buffer.from(r.data.slice('data:image/png;base64,'.length), 'base64'), pxPerUnit: r.pxPerUnit, chartArea: r.chartArea });
  }
  await page.close();
  return out;
}

async function main(): Promise<void> {
  const chromiumPath = loadConfig().chromiumPath;
  const tmp = mkdtempSync(join(tmpdir(), 'chartshot-calibration-'));
  const manifest: Array<{ pair: string; kind: 'benign' | 'harmful'; chart: string; how: string; chartArea: Box }> = [];
  const identical: string[] = [];
  try {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    const charts: Array<[string, Cfg]> = [['bar', bar()], ['line', line()], ['doughnut', pie()]];
    const base = await launch(BASE, chromiumPath, tmp);
    let goldens: Drawn[];
    try {
      goldens = await draw(base, charts.map((c) => structuredClone(c[1])));
      const harmful = await draw(
        base,
        HARMFUL.map((h) => h.actual(goldens[0]!.pxPerUnit)),
      );
      HARMFUL.forEach((h, i) => {
        const chart = h.name.split('-')[0]!;
        const golden = goldens[charts.findIndex((c) => c[0] === chart)]!.png;
        writeFileSync(join(OUT, `${h.name}.golden.png`), golden);
        writeFileSync(join(OUT, `${h.name}.actual.png`), harmful[i]!.png);
        manifest.push({ pair: h.name, kind: 'harmful', chart, how: h.what, chartArea: goldens[charts.findIndex((c) => c[0] === chart)]!.chartArea });
      });
    } finally {
      await base.close();
    }
    for (const v of BENIGN) {
      const b = await launch(v, chromiumPath, tmp);
      try {
        const drawn = await draw(b, charts.map((c) => structuredClone(c[1])));
        charts.forEach(([chart], i) => {
          const pair = `${chart}-${v.name}`;
          // a variant that changes nothing calibrates nothing: listed, not kept
          if (drawn[i]!.png.equals(goldens[i]!.png)) {
            identical.push(pair);
            return;
          }
          writeFileSync(join(OUT, `${pair}.golden.png`), goldens[i]!.png);
          writeFileSync(join(OUT, `${pair}.actual.png`), drawn[i]!.png);
          manifest.push({ pair, kind: 'benign', chart, chartArea: goldens[i]!.chartArea, how: v.fontconfig ? `fontconfig: ${/<match target="font">(.*)<\/match>/.exec(v.fontconfig)![1]}` : `Chromium flags: ${v.args.join(' ')}` });
        });
      } finally {
        await b.close();
      }
    }
    writeFileSync(join(OUT, 'manifest.json'), JSON.stringify({ chromium: await chromiumVersion(chromiumPath), size: `${W}x${H}`, pairs: manifest, identical }, null, 1) + '\n');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function chromiumVersion(path: string): Promise<string> {
  const b = await puppeteer.launch({ executablePath: path, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    return await b.version();
  } finally {
    await b.close();
  }
}

await main();
