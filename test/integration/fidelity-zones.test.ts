// Fidelity in a time zone and a locale: a chart drawn with `timezone` and `locale` is
// pixel-identical to what the same Chart.js and date adapter draw on a plain <canvas> in a
// Chromium started with TZ set to that zone (no emulation: a reader's browser there), and, for
// locales, in a Chromium page under Chromium's own emulation (Emulation.setLocaleOverride:
// headless Chromium's Intl stays en-US whatever LANG or --lang it starts with), across the spring and autumn DST changes of Europe/Berlin, America/New_York and
// Australia/Lord_Howe (30 minutes), and in Asia/Kolkata (+05:30), with time.unit hour and day,
// through every date adapter the pages carry (date-fns on Chart.js 3 and 4, moment on 2 and the
// moment adapter on 4); number ticks in de-DE, fr-CH, hi-IN and ar-EG. The same chart in two
// zones differs, and each equals its reference: PNG, and WebP, JPEG, PDF and SVG from it.
// The reference is test/helpers/oracle.ts: the vendored builds alone, without the harness.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { pngToPdf } from '../../src/render/pdf.js';
import type { RenderRequest, RasterEncoding } from '../../src/chart/request.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { decodePng, differingPixels } from '../helpers/images.js';
import { FidelityOracle, type OracleScript } from '../helpers/oracle.js';

/** The four ways a time scale is drawn, each as its page carries it. */
type Adapter = 'date-fns 4' | 'moment 4' | 'date-fns 3' | 'moment 2';
const CHARTJS: Record<Adapter, 2 | 3 | 4> = { 'date-fns 4': 4, 'moment 4': 4, 'date-fns 3': 3, 'moment 2': 2 };
/** The reference page's scripts: the vendored Chart.js and adapter builds (the moment adapter as published). */
const SCRIPTS: Record<Adapter, OracleScript[]> = {
  'date-fns 4': ['chart.umd.js', 'chartjs-adapter-date-fns.js'],
  'moment 4': ['chart.umd.js', 'moment.js', { file: 'node_modules/chartjs-adapter-moment/dist/chartjs-adapter-moment.js' }],
  'date-fns 3': ['v3/chart.js', 'chartjs-adapter-date-fns.js'],
  'moment 2': ['v2/chart.js'],
};

// What a browser page of these charts would write itself: function strings as functions; and
// every text Chart.js draws on a canvas, kept for the comparison with an SVG.
const SETUP = `
window.oracleTexts = [];
// once a realm: loading the page again (oracle.emulate) keeps its window
if (!window.oracleFillText) {
  window.oracleFillText = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (t) { window.oracleTexts.push(String(t)); return window.oracleFillText.apply(this, arguments); };
}
window.oraclePrepare = function (cfg) {
  window.oracleTexts = [];
  (function revive(o) {
    for (var k in o) {
      if (typeof o[k] === 'string' && /^function\\s*\\(/.test(o[k])) o[k] = (0, eval)('(' + o[k] + ')');
      else if (o[k] && typeof o[k] === 'object') revive(o[k]);
    }
  })(cfg);
};`;

interface Reference {
  png: Buffer;
  /** With `encoded` only. */
  webp?: Buffer;
  jpeg?: Buffer;
  texts: string[];
}

const WIDTH = 560;
const HEIGHT = 280;
const BLUE = '#36a2eb';
const HOUR = 3600_000;

/** A line over [from, to) every `stepMs`, on a time axis of `unit`; `moment`: moment's format tokens (the moment adapter on Chart.js 4). */
function timeChart(adapter: Adapter, from: number, to: number, stepMs: number, unit: 'hour' | 'day'): Record<string, unknown> {
  const data: Array<{ x: number; y: number }> = [];
  for (let t = from, i = 0; t < to; t += stepMs, i++) data.push({ x: t, y: 10 + ((i * 7) % 13) });
  const time: Record<string, unknown> = { unit };
  if (adapter === 'moment 4') time.displayFormats = { hour: 'MMM D HH:mm', day: 'ddd D MMM' };
  const dataset = { label: `${unit}s`, data, borderColor: BLUE, backgroundColor: BLUE, pointBackgroundColor: BLUE, pointBorderColor: BLUE, fill: false };
  if (CHARTJS[adapter] === 2) {
    return {
      type: 'line',
      data: { datasets: [{ ...dataset, lineTension: 0 }] },
      options: { scales: { xAxes: [{ type: 'time', time }], yAxes: [{ ticks: { beginAtZero: true } }] }, plugins: { datalabels: { display: false } } },
    };
  }
  return { type: 'line', data: { datasets: [dataset] }, options: { scales: { x: { type: 'time', time } } } };
}

/** Number ticks Chart.js formats itself (3 and 4: options.locale), plus a callback's toLocaleString and Intl default. */
function numberChart(version: 2 | 3 | 4): Record<string, unknown> {
  const data = [1234.5, 98765.4321, 1234567.891, 250000.25];
  const labels = ['a', 'b', 'c', 'd'];
  const dataset = { label: 'n', data, backgroundColor: BLUE, borderColor: BLUE };
  if (version === 2) {
    return {
      type: 'bar',
      data: { labels, datasets: [dataset] },
      // Chart.js 2 formats numbers itself without a locale: only caller code is localised
      options: { scales: { yAxes: [{ ticks: { beginAtZero: true, callback: 'function (v) { return Number(v).toLocaleString() + " | " + new Intl.NumberFormat().format(v / 1000); }' } }] }, plugins: { datalabels: { display: false } } },
    };
  }
  // x: Chart.js's own number formatting (a linear scale on a horizontal bar); y: caller code
  return {
    type: 'bar',
    data: { labels, datasets: [dataset] },
    options: {
      indexAxis: 'y',
      scales: { x: { beginAtZero: true }, y: { ticks: { callback: 'function (v, i) { return this.getLabelForValue(v) + " " + (1234.5 * (i + 1)).toLocaleString() + " " + new Intl.NumberFormat().format(0.5); }' } } },
    },
  };
}

describe('fidelity in a time zone and a locale', function () {
  this.timeout(600_000);
  let s: TestServer;
  let oracle: FidelityOracle;
  /** The zone and locale each reference page is in. */
  const emulated = new Map<Page, string>();
  /** A Chromium started with TZ=zone, for the time-axis cases (launched again when the zone changes). */
  let zoned: { zone: string; oracle: FidelityOracle } | null = null;

  before(async () => {
    s = await startTestServer({ poolSize: 2 });
    oracle = await FidelityOracle.launch();
  });
  after(async () => {
    await zoned?.oracle.close();
    await oracle?.close();
    await s?.stop();
  });

  /** What the adapter's plain page draws in a Chromium started with TZ=zone (in en-US, headless Chromium's own locale). */
  async function zoneReference(adapter: Adapter, chart: Record<string, unknown>, zone: string): Promise<Buffer> {
    if (zoned?.zone !== zone) {
      const old = zoned;
      zoned = null;
      await old?.oracle.close();
      zoned = { zone, oracle: await FidelityOracle.launch({ timezone: zone }) };
    }
    const page = await zoned.oracle.page(SCRIPTS[adapter], SETUP);
    return zoned.oracle.draw(page, chart, { width: WIDTH, height: HEIGHT, background: '#ffffff' });
  }

  /** What the adapter's plain page draws under Chromium's emulation of `zone` and `locale` (loaded afresh in them); `encoded`: its WebP and JPEG too. */
  async function reference(adapter: Adapter, chart: Record<string, unknown>, timezone: string, locale: string, encoded = false): Promise<Reference> {
    const page = await oracle.page(SCRIPTS[adapter], SETUP, { ownContext: true });
    if (emulated.get(page) !== `${timezone} ${locale}`) {
      await oracle.emulate(page, { timezone, locale });
      emulated.set(page, `${timezone} ${locale}`);
    }
    const size = { width: WIDTH, height: HEIGHT, background: '#ffffff' };
    const png = await oracle.draw(page, chart, size);
    const texts = (await page.evaluate('window.oracleTexts')) as string[];
    if (!encoded) return { png, texts };
    return {
      png,
      texts,
      webp: await oracle.draw(page, chart, { ...size, type: 'image/webp', quality: 0.8 }),
      jpeg: await oracle.draw(page, chart, { ...size, type: 'image/jpeg', quality: 0.92 }),
    };
  }

  async function ours(adapter: Adapter, chart: Record<string, unknown>, zone: string, locale: string, format: 'png' | 'svg' | 'pdf' = 'png', raster?: RasterEncoding): Promise<Buffer> {
    const req: RenderRequest = {
      config: chart,
      width: WIDTH,
      height: HEIGHT,
      format,
      backgroundColor: '#ffffff',
      allowFunctions: true,
      watermark: null,
      chartjs: CHARTJS[adapter],
      timezone: zone,
      locale,
      ...(raster ? { raster } : {}),
    };
    return (await s.deps.renderer.render(req)).body;
  }

  function expectIdentical(a: Buffer, b: Buffer, what: string): void {
    const x = decodePng(a);
    const y = decodePng(b);
    expect([x.width, x.height], what).to.deep.equal([y.width, y.height]);
    const differing = differingPixels(x, y);
    expect(differing, `${what}: ${differing} pixels differ from the reference`).to.equal(0);
  }

  // Each period crosses its zone's DST change (Kolkata has none: +05:30 all year); hour-unit
  // windows span 36 hours around the change, day-unit ones 8 days.
  const PERIODS: Array<{ zone: string; what: string; at: number }> = [
    { zone: 'Europe/Berlin', what: 'spring DST', at: Date.UTC(2024, 2, 31, 1) },
    { zone: 'Europe/Berlin', what: 'autumn DST', at: Date.UTC(2024, 9, 27, 1) },
    { zone: 'America/New_York', what: 'spring DST', at: Date.UTC(2024, 2, 10, 7) },
    { zone: 'America/New_York', what: 'autumn DST', at: Date.UTC(2024, 10, 3, 6) },
    { zone: 'Asia/Kolkata', what: '+05:30', at: Date.UTC(2024, 5, 1, 0) },
    { zone: 'Australia/Lord_Howe', what: '30-minute spring DST', at: Date.UTC(2024, 9, 5, 15, 30) },
    { zone: 'Australia/Lord_Howe', what: '30-minute autumn DST', at: Date.UTC(2024, 3, 6, 15) },
  ];
  const ADAPTERS = Object.keys(SCRIPTS) as Adapter[];

  for (const period of PERIODS) {
    for (const unit of ['hour', 'day'] as const) {
      it(`${period.zone} across its ${period.what}, time.unit ${unit}: identical pixels through every date adapter`, async () => {
        for (const adapter of ADAPTERS) {
          const chart = unit === 'hour' ? timeChart(adapter, period.at - 18 * HOUR, period.at + 18 * HOUR, 90 * 60_000, unit) : timeChart(adapter, period.at - 4 * 24 * HOUR, period.at + 4 * 24 * HOUR, 6 * HOUR, unit);
          const ref = await zoneReference(adapter, chart, period.zone);
          const png = await ours(adapter, chart, period.zone, 'en-US');
          expectIdentical(png, ref, `${adapter}`);
          if (process.env.FIDELITY_ZONES_OUT) writeFileSync(join(process.env.FIDELITY_ZONES_OUT, `${period.zone.replace('/', '-')}-${period.what.replace(/\W+/g, '-')}-${unit}-${adapter.replace(' ', '')}.png`), png);
          // the zone is on the image: UTC's ticks fall elsewhere
          expect(png.equals(await ours(adapter, chart, 'UTC', 'en-US')), `${adapter}: drawn as in UTC`).to.equal(false);
        }
      });
    }
  }

  for (const locale of ['de-DE', 'fr-CH', 'hi-IN', 'ar-EG']) {
    it(`number ticks in ${locale}: identical pixels on Chart.js 2, 3 and 4, and not en-US's`, async () => {
      for (const adapter of ['date-fns 4', 'date-fns 3', 'moment 2'] as const) {
        const chart = numberChart(CHARTJS[adapter]);
        const ref = await reference(adapter, chart, 'UTC', locale);
        const png = await ours(adapter, chart, 'UTC', locale);
        expectIdentical(png, ref.png, `${adapter} ${locale}`);
        if (process.env.FIDELITY_ZONES_OUT) writeFileSync(join(process.env.FIDELITY_ZONES_OUT, `numbers-${locale}-${adapter.replace(' ', '')}.png`), png);
        expect(png.equals(await ours(adapter, chart, 'UTC', 'en-US')), `${adapter}: ${locale} draws as en-US`).to.equal(false);
      }
    });
  }

  it('the same chart in two zones differs, and each equals its reference: PNG, WebP, JPEG, PDF and SVG', async () => {
    for (const adapter of ADAPTERS) {
      const at = Date.UTC(2024, 2, 31, 1);
      const chart = timeChart(adapter, at - 18 * HOUR, at + 18 * HOUR, 90 * 60_000, 'hour');
      const seen: Record<string, Buffer> = {};
      for (const [zone, locale] of [['Europe/Berlin', 'de-DE'], ['America/New_York', 'en-US']] as const) {
        const ref = await reference(adapter, chart, zone, locale, true);
        const png = await ours(adapter, chart, zone, locale);
        expectIdentical(png, ref.png, `${adapter} ${zone} PNG`);
        expect((await ours(adapter, chart, zone, locale, 'png', { type: 'webp', quality: 80 })).equals(ref.webp!), `${adapter} ${zone} WebP`).to.equal(true);
        expect((await ours(adapter, chart, zone, locale, 'png', { type: 'jpeg', quality: 92 })).equals(ref.jpeg!), `${adapter} ${zone} JPEG`).to.equal(true);
        expect((await ours(adapter, chart, zone, locale, 'pdf')).equals(await pngToPdf(ref.png, WIDTH, HEIGHT)), `${adapter} ${zone} PDF`).to.equal(true);
        // the SVG's texts are the texts Chart.js drew on the reference canvas, in order
        const svg = (await ours(adapter, chart, zone, locale, 'svg')).toString('utf8');
        const texts = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&'));
        expect(texts, `${adapter} ${zone} SVG`).to.deep.equal(ref.texts);
        seen[zone] = png;
      }
      expect(seen['Europe/Berlin']!.equals(seen['America/New_York']!), `${adapter}: the two zones drew the same`).to.equal(false);
    }
  });
});
