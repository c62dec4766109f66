// The automation-style (Zapier-style) endpoints against the real server: real Chromium,
// real SQLite; the URLs they return are fetched and checked.
import { expect } from 'chai';
import { post, sharedAccount, type TestServer } from '../helpers/server.js';
import { decodePng, isPng, pixel } from '../helpers/images.js';
import { apiKey, bytes, type Client } from '../helpers/client.js';

interface Result {
  chart_url: string;
  chart_id: string;
  download_url: string;
  preview_url: string;
  format: string;
  width: number;
  height: number;
}

describe('POST /v1/zapier/*', function () {
  let s: TestServer;
  let api: Client;
  let key: string;

  before(async () => ({ s, api, key } = await sharedAccount()));

  /** The service's own URLs use PUBLIC_BASE_URL; in tests the server listens elsewhere. */
  const local = (u: string) => s.url + new URL(u).pathname + new URL(u).search;
  const call = (path: string, body: unknown, headers: Record<string, string> = apiKey(key)) => post(s.url, `/v1/zapier/${path}`, body, headers);

  async function created(res: Response): Promise<Result> {
    const body = (await res.json()) as Result & { error?: string; detail?: string };
    expect(res.status, JSON.stringify(body)).to.equal(201);
    expect(Object.keys(body).sort()).to.deep.equal(['chart_id', 'chart_url', 'download_url', 'format', 'height', 'preview_url', 'width']);
    return body;
  }

  async function badInput(res: Response, field: RegExp): Promise<void> {
    const body = (await res.json()) as { error: string; detail?: string };
    expect(res.status, JSON.stringify(body)).to.equal(400);
    expect(body.error).to.equal('invalid_input');
    expect(body.detail).to.match(field);
  }

  it('bar-chart: 201 with all seven fields and the defaults (800x400 png); chart_url serves the image', async () => {
    const r = await created(await call('bar-chart', { title: 'Sales', labels: 'Q1,Q2,Q3,Q4', values: '12,19,3,5' }));
    expect(r).to.include({ format: 'png', width: 800, height: 400 });
    expect(r.chart_url).to.equal(`${s.config.publicBaseUrl}/v1/chart/${r.chart_id}`);
    expect(r.chart_url).not.to.contain(key);
    const img = await fetch(local(r.chart_url));
    expect(img.status).to.equal(200);
    expect(img.headers.get('content-type')).to.equal('image/png');
    const png = decodePng(await bytes(img));
    expect([png.width, png.height]).to.deep.equal([800, 400]);
    // White background by default on these endpoints.
    expect(pixel(png, 1, 1)).to.deep.equal([255, 255, 255, 255]);
    // Bars in the default colour #3B82F6 somewhere along the middle row of the plot.
    let blue = false;
    for (let x = 0; x < 800 && !blue; x++) for (let y = 150; y < 390 && !blue; y += 10) {
      const [r0, g, b] = pixel(png, x, y);
      blue = r0 === 0x3b && g === 0x82 && b === 0xf6;
    }
    expect(blue, 'a pixel of #3B82F6').to.equal(true);
  });

  it('download_url serves the image as an attachment; preview_url is an HTML page showing it', async () => {
    const r = await created(await call('bar-chart', { title: 'T', labels: 'a,b', values: '1,2', width: 300, height: 200, format: 'svg' }));
    expect(r).to.include({ format: 'svg', width: 300, height: 200 });
    const dl = await fetch(local(r.download_url));
    expect(dl.status).to.equal(200);
    expect(dl.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(dl.headers.get('content-disposition')).to.equal(`attachment; filename="chart-${r.chart_id}.svg"`);
    expect(await dl.text()).to.match(/^(<\?xml[^>]*>\s*)?<svg[^>]*width="300"/);
    const page = await fetch(local(r.preview_url));
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    // no script, no base or form target, no sniffing (an outside probe found nosniff missing)
    expect(page.headers.get('content-security-policy')).to.include("default-src 'none'").and.include("base-uri 'none'");
    expect(page.headers.get('x-content-type-options')).to.equal('nosniff');
    const html = await page.text();
    expect(html).to.contain(`<img src="/v1/chart/${r.chart_id}"`);
    expect(html).to.contain(`href="/v1/chart/${r.chart_id}/download"`);
    expect((await fetch(`${s.url}/v1/chart/AAAAAAAAAAAAAAAAAAAAAA/preview`)).status).to.equal(404);
    expect((await fetch(`${s.url}/v1/chart/AAAAAAAAAAAAAAAAAAAAAA/download`)).status).to.equal(404);
  });

  it('line-chart: defaults, tension and the form-tool spellings ("600", "true")', async () => {
    const r = await created(
      await call('line-chart', { title: 'Visits', labels: 'Mon,Tue,Wed', values: '3, 7.5, -2', width: '600', height: '300', fillArea: 'true', tension: '0' }),
    );
    expect(r).to.include({ width: 600, height: 300, format: 'png' });
    const png = decodePng(await bytes(fetch(local(r.chart_url))));
    expect(png.width).to.equal(600);
  });

  it('pie-chart: 500x500 by default; colors as a comma-separated list (rgb() commas kept)', async () => {
    const r = await created(await call('pie-chart', { title: 'Share', labels: 'A,B,C', values: '50,30,20', colors: '#EF4444, rgb(16, 185, 129),#F59E0B', legendPosition: 'right' }));
    expect(r).to.include({ width: 500, height: 500 });
    const png = decodePng(await bytes(fetch(local(r.chart_url))));
    let red = false;
    for (let x = 0; x < 500 && !red; x += 2) for (let y = 0; y < 500 && !red; y += 2) {
      const [r0, g, b] = pixel(png, x, y);
      red = r0 === 0xef && g === 0x44 && b === 0x44;
    }
    expect(red, 'a slice in #EF4444').to.equal(true);
  });

  it('multi-series-chart: series as an array or a JSON string; type line', async () => {
    const series = [
      { name: '2023', values: '1,2,3' },
      { name: '2024', values: '2,3,4', color: '#EF4444' },
    ];
    const a = await created(await call('multi-series-chart', { title: 'YoY', labels: 'a,b,c', series }));
    expect(a).to.include({ width: 800, height: 400, format: 'png' });
    const b = await created(await call('multi-series-chart', { title: 'YoY', labels: 'a,b,c', series: JSON.stringify(series), type: 'line', width: 400, height: 300 }));
    expect(b).to.include({ width: 400, height: 300 });
    expect((await fetch(local(b.chart_url))).status).to.equal(200);
  });

  describe('bad input is 400 invalid_input naming the field', () => {
    const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
      ['missing title', 'bar-chart', { labels: 'a', values: '1' }, /^title is required/],
      ['missing labels', 'line-chart', { title: 't', values: '1' }, /^labels is required/],
      ['missing values', 'pie-chart', { title: 't', labels: 'a' }, /^values is required/],
      ['missing series', 'multi-series-chart', { title: 't', labels: 'a' }, /^series is required/],
      ['count mismatch', 'bar-chart', { title: 't', labels: 'a,b,c', values: '1,2' }, /values has 2 entries but labels has 3/],
      ['non-numeric value', 'line-chart', { title: 't', labels: 'a,b', values: '1,abc' }, /values: entry 2 \("abc"\) is not a number/],
      ['empty value', 'bar-chart', { title: 't', labels: 'a,b', values: '1,' }, /values: entry 2/],
      ['tension above 1', 'line-chart', { title: 't', labels: 'a', values: '1', tension: 1.5 }, /^tension must be <= 1/],
      ['tension below 0', 'line-chart', { title: 't', labels: 'a', values: '1', tension: '-0.1' }, /^tension must be >= 0/],
      ['4 series', 'multi-series-chart', { title: 't', labels: 'a', series: [1, 2, 3, 4].map((i) => ({ name: `s${i}`, values: '1' })) }, /^series must NOT have more than 3 items/],
      ['4 series as a JSON string', 'multi-series-chart', { title: 't', labels: 'a', series: JSON.stringify([1, 2, 3, 4].map((i) => ({ name: `s${i}`, values: '1' }))) }, /series has 4 entries; at most 3/],
      ['series count mismatch', 'multi-series-chart', { title: 't', labels: 'a,b', series: [{ name: 's', values: '1,2,3' }] }, /series\[0\]\.values has 3 entries but labels has 2/],
      ['series without name', 'multi-series-chart', { title: 't', labels: 'a', series: [{ values: '1' }] }, /^series\[0\]\.name is required/],
      ['bad series JSON', 'multi-series-chart', { title: 't', labels: 'a', series: '[{' }, /^series must be/],
      ['bad colour', 'bar-chart', { title: 't', labels: 'a', values: '1', color: 'not a colour!' }, /^color must be a CSS colour/],
      ['bad pie colour', 'pie-chart', { title: 't', labels: 'a,b', values: '1,2', colors: '#EF4444,#12' }, /^colors \(entry 2\) must be a CSS colour/],
      ['bad series colour', 'multi-series-chart', { title: 't', labels: 'a', series: [{ name: 's', values: '1', color: 'url(x)' }] }, /^series\[0\]\.color must be a CSS colour/],
      ['bad backgroundColor', 'pie-chart', { title: 't', labels: 'a', values: '1', backgroundColor: '#zzz' }, /^backgroundColor must be a CSS colour/],
      ['bad legendPosition', 'pie-chart', { title: 't', labels: 'a', values: '1', legendPosition: 'middle' }, /^legendPosition must be one of top, bottom, left, right$/],
      ['bad format', 'bar-chart', { title: 't', labels: 'a', values: '1', format: 'pdf' }, /^format must be one of png, svg$/],
      ['width not a number', 'bar-chart', { title: 't', labels: 'a', values: '1', width: 'wide' }, /^width must be an integer 1-\d+ on the \w+ plan$/],
      ['width over the plan cap', 'bar-chart', { title: 't', labels: 'a', values: '1', width: 3000 }, /width must be an integer 1-2000/],
      ['bad multi type', 'multi-series-chart', { title: 't', labels: 'a', series: [{ name: 's', values: '1' }], type: 'pie' }, /^type must be one of bar, line$/],
      ['negative pie value', 'pie-chart', { title: 't', labels: 'a,b', values: '1,-2' }, /^values of a pie chart must not be negative/],
    ];
    for (const [name, path, body, field] of cases) {
      it(`${name} (${path})`, async () => badInput(await call(path, body), field));
    }
    it('a body that is not an object', async () => badInput(await call('bar-chart', '[1,2]'), /body must be a JSON object/));
  });

  it('401 without a key or with a wrong one', async () => {
    for (const headers of [{}, apiKey('live_nope')] as Array<Record<string, string>>) {
      const res = await call('bar-chart', { title: 't', labels: 'a', values: '1' }, headers);
      expect(res.status).to.equal(401);
      expect(((await res.json()) as { error: string }).error).to.equal('unauthorized');
    }
  });

  it('the key may also come as ?api_key=', async () => {
    const res = await post(s.url, `/v1/zapier/bar-chart?api_key=${encodeURIComponent(key)}`, { title: 't', labels: 'a', values: '1' });
    expect(res.status).to.equal(201);
  });

  it('each call counts one generation in the account usage (GET /usage/analytics); bad input none', async () => {
    const acct = await s.account('starter');
    const used = async () => {
      const res = await fetch(`${s.url}/usage/analytics`, { headers: { authorization: `Bearer ${acct.session_token}` } });
      expect(res.status).to.equal(200);
      return ((await res.json()) as { currentUsage: { count: number } }).currentUsage.count;
    };
    const before = await used();
    await created(await call('pie-chart', { title: 't', labels: 'a', values: '1' }, apiKey(acct.api_key)));
    await badInput(await call('pie-chart', { title: 't', labels: 'a', values: 'one' }, apiKey(acct.api_key)), /values/);
    expect(await used()).to.equal(before + 1);
  });

  it('each call is one generation, through the same path as POST /v1/chart/create; bad input is none', async () => {
    const charts = s.deps.charts;
    const original = charts.generate;
    let generations = 0;
    charts.generate = function (this: typeof charts, ...args: Parameters<typeof original>) {
      generations++;
      return original.apply(this, args);
    } as typeof original;
    try {
      await created(await call('bar-chart', { title: 't', labels: 'a', values: '1' }));
      await created(await call('multi-series-chart', { title: 't', labels: 'a', series: [{ name: 's', values: '1' }] }));
      await badInput(await call('bar-chart', { title: 't', labels: 'a', values: 'x' }), /values/);
      expect(generations).to.equal(2);
    } finally {
      charts.generate = original;
    }
  });
});
