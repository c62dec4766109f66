// A caller's time zone and locale never reach the next caller's render on the same page: not
// after it (one page, renders in turn), not behind it (rides: renders sent to the page before the
// answer of the one ahead came back, with the emulation switched between them), not through
// Chart.js's page-wide cache of number formatters, and not when Chromium's emulation is not
// where Node believes it is (the page refuses to draw, and is replaced).
import { expect } from 'chai';
import { Renderer, RenderError, type PageRequest } from '../../src/render/renderer.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { decodePng } from '../helpers/images.js';

const HOUR = 3600_000;
const AT = Date.UTC(2024, 2, 31, 1);
const points = Array.from({ length: 24 }, (_, i) => ({ x: AT - 12 * HOUR + i * HOUR, y: 5 + ((i * 5) % 11) }));
/** A time axis (its ticks are the zone's hours) over number ticks Chart.js formats (the locale's digits and separators). */
const TIME = { type: 'line', data: { datasets: [{ label: 'kWh', data: points.map((p) => ({ x: p.x, y: p.y * 250_000 })), borderColor: '#0a7', backgroundColor: '#0a7' }] }, options: { scales: { x: { type: 'time', time: { unit: 'hour' } } } } };
/** Number ticks of 200,000 a step: no fraction digits (the warm-up's charts have one). */
const NUMBERS = { type: 'bar', data: { labels: ['a', 'b', 'c'], datasets: [{ label: 'n', data: [400_000, 1_000_000, 1_400_000], backgroundColor: '#36a2eb' }] } };

function request(config: Record<string, unknown>, zone: { timezone?: string; locale?: string }, extra: Partial<PageRequest> = {}): PageRequest {
  return { config, width: 420, height: 240, format: 'png', backgroundColor: '#ffffff', allowFunctions: false, watermark: null, ...zone, ...extra };
}

const TENANTS = [
  { timezone: 'Europe/Berlin', locale: 'de-DE' },
  { timezone: 'Asia/Kolkata', locale: 'hi-IN' },
  {}, // the defaults: UTC, en-US
  { timezone: 'America/New_York', locale: 'ar-EG' },
];

const svgTexts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);

describe('zones and locales between tenants of one page', function () {
  this.timeout(240_000);
  let pool: Renderer;
  const counts = () => ({ rides: pool.stats().rides ?? 0, retries: pool.stats().rideRetries ?? 0 });

  before(async () => {
    pool = new Renderer({ chromiumPath: loadConfig({}).chromiumPath, size: 1, renderTimeoutMs: 10_000, acquireTimeoutMs: 120_000, maxQueue: 100, pageMaxRenders: 10_000 }, createLogger('silent'));
    await pool.start();
  });
  after(async () => pool?.close());

  const png = async (req: PageRequest) => Buffer.from((await pool.render(req)).data, 'base64');

  it('renders in turn on one page: each in its own zone and locale, whatever was drawn before it', async () => {
    const alone = [];
    for (const t of TENANTS) alone.push(await png(request(TIME, t)));
    expect(new Set(alone.map((b) => b.toString('base64'))).size, 'four tenants, four images').to.equal(TENANTS.length);
    // every order of two: the second is drawn exactly as it was alone
    for (let a = 0; a < TENANTS.length; a++) {
      for (let b = 0; b < TENANTS.length; b++) {
        await png(request(TIME, TENANTS[a]!));
        expect((await png(request(TIME, TENANTS[b]!))).equals(alone[b]!), `${JSON.stringify(TENANTS[b])} after ${JSON.stringify(TENANTS[a])}`).to.equal(true);
      }
    }
  });

  it('rides: a batch alternating zones and locales on one page draws each exactly as alone', async () => {
    const batch = Array.from({ length: 16 }, (_, i) => TENANTS[i % TENANTS.length]!);
    const alone = await Promise.all(TENANTS.map(async (t) => png(request(TIME, t))));
    const before = counts();
    for (let round = 0; round < 3; round++) {
      const together = await Promise.all(batch.map((t) => png(request(TIME, t))));
      together.forEach((img, i) => expect(img.equals(alone[i % TENANTS.length]!), `round ${round}, render ${i} (${JSON.stringify(batch[i])})`).to.equal(true));
    }
    const after = counts();
    expect(after.rides - before.rides, 'renders rode behind others').to.be.greaterThan(3);
    expect(after.retries - before.retries).to.equal(0);
  });

  // Chart.js 3 and 4 keep an Intl.NumberFormat per options.locale page-wide: without a locale of
  // the request's, the first locale to format a kind of tick formatted it for every later caller
  // (here a de-DE caller's "200.000" on an en-US chart). Failed before options.locale defaulted.
  for (const chartjs of [4, 3] as const) {
    it(`Chart.js ${chartjs}: number ticks in one locale never format the next caller's`, async () => {
      const svg = async (locale: string) => svgTexts((await pool.render(request(NUMBERS, { locale }, { format: 'svg', chartjs }))).data);
      const german = await svg('de-DE');
      expect(german).to.include('1.400.000');
      const english = await svg('en-US');
      expect(english).to.include('1,400,000').and.not.include('1.400.000');
      // fr-CH groups with a narrow no-break space (U+202F in the CLDR of Chromium 156)
      expect((await svg('fr-CH')).some((t) => /^1\s400\s000$/u.test(t))).to.equal(true);
      expect(await svg('ar-EG')).to.include('١٬٤٠٠٬٠٠٠');
      expect(await svg('en-US')).to.deep.equal(english);
      // a config's own options.locale still decides
      const own = svgTexts((await pool.render(request({ ...NUMBERS, options: { locale: 'de-CH' } }, { locale: 'en-US' }, { format: 'svg', chartjs }))).data);
      expect(own.some((t) => /^1['’]400['’]000$/u.test(t)), own.join(' | ')).to.equal(true);
    });
  }

  it('a page whose emulation is not what Node believes refuses to draw, and is replaced', async () => {
    const utc = await png(request(TIME, { timezone: 'UTC', locale: 'en-US' }));
    // behind Node's back: the page's own session moves it to Tokyo
    const [page] = [...pool.livePages()];
    await page!.cdp.send('Emulation.setTimezoneOverride', { timezoneId: 'Asia/Tokyo' });
    let refused: unknown;
    try {
      await png(request(TIME, { timezone: 'UTC', locale: 'en-US' }));
    } catch (err) {
      refused = err;
    }
    expect(refused).to.be.instanceOf(RenderError);
    expect((refused as RenderError).kind).to.equal('crash');
    expect((refused as Error).message).to.match(/not in the time zone and locale of its request/);
    // a new page draws it as before
    expect((await png(request(TIME, { timezone: 'UTC', locale: 'en-US' }))).equals(utc)).to.equal(true);
    expect(decodePng(utc).width).to.equal(420);
  });
});
