// `timezone` and `locale` on every route that draws: POST and GET /v1/chart (signed URLs and the
// typed client too), /v1/chart/create (kept with the chart), the open endpoint (its cache key),
// QuickChart's /chart, /chart/create and /chart/render/{id}, the Zapier endpoints and the MCP
// tools. Each draws in them; a bad value is 400 invalid_config naming the field with a valid
// example, and never reaches a page.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.js';
import { apiKey, bytes, errorOf, post } from '../helpers/client.js';
import { Chartshot } from '../../src/client/index.js';
import { signQuery } from '../../src/services/signing.js';

const HOUR = 3600_000;
const AT = Date.UTC(2024, 2, 31, 1);
/** A time axis across Berlin's spring DST change, over values Chart.js formats with the locale. */
const TIME = {
  type: 'line',
  data: { datasets: [{ label: 'kWh', data: Array.from({ length: 20 }, (_, i) => ({ x: AT - 10 * HOUR + i * HOUR, y: 250_000 + ((i * 7) % 11) * 125_000 })), borderColor: '#0a7', backgroundColor: '#0a7' }] },
  options: { scales: { x: { type: 'time', time: { unit: 'hour' } } } },
};
const BERLIN = { timezone: 'Europe/Berlin', locale: 'de-DE' };
const SIZE = { width: 420, height: 220 };

/** The bad values and what their refusal names. */
const BAD: Array<[Record<string, unknown>, RegExp]> = [
  [{ timezone: 'Mars/Olympus' }, /^timezone "Mars\/Olympus" is not a known time zone: use .*Europe\/Berlin/],
  [{ timezone: '+05:30' }, /^timezone must be an IANA time zone name such as Europe\/Berlin/],
  [{ timezone: 'Europe/Berlin"><script>' }, /^timezone must be an IANA time zone name such as Europe\/Berlin/],
  [{ timezone: `Europe/${'B'.repeat(60)}` }, /^timezone must be .*at most 64 characters/],
  [{ locale: 'en_US' }, /^locale must be a BCP 47 language tag such as de-DE/],
  [{ locale: 'xx-XX' }, /^locale "xx-XX" names no language this server has data for: use .*de-DE/],
  [{ locale: 'de-DE\u0000' }, /^locale must be a BCP 47 language tag such as de-DE/],
];

describe('timezone and locale on every route', function () {
  this.timeout(300_000);
  let s: TestServer;
  let key: string;
  let account: Credentials;
  let utc: Buffer;
  let berlin: Buffer;

  const render = async (body: Record<string, unknown>) => {
    const res = await post(s.url, '/v1/chart', { chart: TIME, ...SIZE, ...body }, apiKey(key));
    const out = await bytes(res);
    expect(res.status, out.toString('utf8').slice(0, 300)).to.equal(200);
    return out;
  };
  const query = (fields: Record<string, string>) => new URLSearchParams({ chart: JSON.stringify(TIME), width: String(SIZE.width), height: String(SIZE.height), ...fields });

  before(async () => {
    s = await startTestServer({ poolSize: 1 });
    ({ key, account } = await s.client('enterprise'));
    utc = await render({});
    berlin = await render(BERLIN);
  });
  after(async () => s?.stop());

  it('POST /v1/chart: drawn in the zone and locale; any spelling of the same ones, the same image; UTC and en-US are the defaults', async () => {
    expect(berlin.equals(utc)).to.equal(false);
    expect((await render({ timezone: 'Europe/Berlin' })).equals(utc), 'the zone alone').to.equal(false);
    expect((await render({ locale: 'de-DE' })).equals(utc), 'the locale alone').to.equal(false);
    expect((await render({ timezone: 'europe/berlin', locale: 'de-de' })).equals(berlin)).to.equal(true);
    expect((await render({ timezone: 'UTC', locale: 'en-US' })).equals(utc)).to.equal(true);
    // an empty field is an absent one (form tools send them)
    expect((await render({ timezone: '', locale: '' })).equals(utc)).to.equal(true);
  });

  it('GET /v1/chart, a signed URL and the typed client: the same image', async () => {
    const got = await fetch(`${s.url}/v1/chart?${query({ ...BERLIN, api_key: key })}`);
    expect((await bytes(got)).equals(berlin)).to.equal(true);
    const exp = Math.floor(Date.now() / 1000) + 600;
    const signed = await fetch(`${s.url}/v1/chart?${signQuery(Object.fromEntries(query(BERLIN)), account.key_id, account.signing_secret, exp)}`);
    expect(signed.status).to.equal(200);
    expect((await bytes(signed)).equals(berlin)).to.equal(true);
    const client = new Chartshot({ baseUrl: s.url, apiKey: key, keyId: account.key_id, signingSecret: account.signing_secret });
    expect((await client.render({ chart: TIME, ...SIZE, ...BERLIN })).body.equals(berlin)).to.equal(true);
    expect((await bytes(fetch(client.signUrl({ chart: TIME, ...SIZE, ...BERLIN }, { inSeconds: 600 })))).equals(berlin)).to.equal(true);
  });

  it('/v1/chart/create keeps them with the chart: its short URL draws in them, a re-render too; a chart made without them keeps UTC and en-US', async () => {
    const made = (await (await post(s.url, '/v1/chart/create', { chart: TIME, ...SIZE, ...BERLIN }, apiKey(key))).json()) as { id: string; url: string };
    const url = s.url + new URL(made.url).pathname;
    expect((await bytes(fetch(url))).equals(berlin)).to.equal(true);
    const record = await s.deps.store.charts.find(made.id);
    expect([record!.request.timezone, record!.request.locale]).to.deep.equal(['Europe/Berlin', 'de-DE']);
    await s.deps.store.images.delete(`chart:${made.id}`);
    s.deps.imageCache.clearMemory();
    const again = await fetch(url);
    expect(again.headers.get('x-cache-tier')).to.equal('miss');
    expect((await bytes(again)).equals(berlin), 're-rendered from the stored request').to.equal(true);
    const plain = (await (await post(s.url, '/v1/chart/create', { chart: TIME, ...SIZE }, apiKey(key))).json()) as { id: string };
    const kept = (await s.deps.store.charts.find(plain.id))!.request;
    expect([kept.timezone, kept.locale]).to.deep.equal(['UTC', 'en-US']);
  });

  it('the open endpoint: drawn in them, and part of the cache key', async () => {
    const c = JSON.stringify({ type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: `p${process.pid}`, data: [1_250_000, 2_500_000] }] } });
    const open = (extra: Record<string, string>) => fetch(`${s.url}/v1/open/chart?${new URLSearchParams({ c, w: '300', h: '160', ...extra })}`);
    const plain = await open({});
    const german = await open({ locale: 'de-DE', timezone: 'Europe/Berlin' });
    expect([plain.headers.get('x-cache-tier'), german.headers.get('x-cache-tier')]).to.deep.equal(['miss', 'miss']);
    const [a, b] = [await bytes(plain), await bytes(german)];
    expect(a.equals(b)).to.equal(false);
    const again = await open({ timezone: 'europe/berlin', locale: 'de-de' });
    expect(again.headers.get('x-cache-tier'), 'the same zone and locale, spelt otherwise: the same image').to.equal('edge');
    expect((await bytes(again)).equals(b)).to.equal(true);
    expect((await bytes(open({ timezone: 'UTC', locale: 'en-US' }))).equals(a)).to.equal(true);
  });

  it("QuickChart's /chart (query and body), /chart/create and /chart/render/{id}; absent, QuickChart's own UTC and en-US", async () => {
    const qc = { chart: JSON.stringify(TIME), version: '4', width: String(SIZE.width), height: String(SIZE.height), devicePixelRatio: '1' };
    const viaGet = await bytes(fetch(`${s.url}/chart?${new URLSearchParams({ ...qc, ...BERLIN, key })}`));
    const viaPost = await bytes(post(s.url, '/chart', { ...qc, ...BERLIN, key }));
    expect(viaGet.equals(viaPost)).to.equal(true);
    expect(viaGet.equals(berlin), 'as /v1/chart draws it').to.equal(true);
    expect((await bytes(post(s.url, '/chart', { ...qc, key }))).equals(utc)).to.equal(true);
    const made = (await (await post(s.url, '/chart/create', { ...qc, ...BERLIN, key })).json()) as { url: string };
    expect((await bytes(fetch(s.url + new URL(made.url).pathname))).equals(berlin)).to.equal(true);
  });

  it('the Zapier endpoints: the value axis in the locale', async () => {
    const bar = (extra: Record<string, unknown>) => post(s.url, '/v1/zapier/bar-chart', { title: 'Sales', labels: 'Q1,Q2', values: '1250000,2500000', width: 300, height: 160, ...extra }, apiKey(key));
    const image = async (extra: Record<string, unknown>) => bytes(fetch(s.url + new URL(((await (await bar(extra)).json()) as { download_url: string }).download_url).pathname));
    const [english, german] = [await image({}), await image({ locale: 'de-DE', timezone: 'Europe/Berlin' })];
    expect(english.equals(german)).to.equal(false);
    expect((await image({ locale: 'en-US' })).equals(english)).to.equal(true);
  });

  it('the MCP tools: render_chart draws in them, validate_config shows them', async () => {
    const client = new McpClient({ name: 'chartshot-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { 'X-Api-Key': key } } }));
    try {
      const r = (await client.callTool({ name: 'render_chart', arguments: { chart: TIME, ...SIZE, ...BERLIN } })) as CallToolResult;
      const image = r.content.find((c): c is Extract<CallToolResult['content'][number], { type: 'image' }> => c.type === 'image');
      expect(Buffer.from(image!.data, 'base64').equals(berlin)).to.equal(true);
      const v = (await client.callTool({ name: 'validate_config', arguments: { chart: TIME, ...SIZE, timezone: 'US/Eastern', locale: 'fr-ch' } })) as CallToolResult;
      const text = v.content.find((c): c is Extract<CallToolResult['content'][number], { type: 'text' }> => c.type === 'text')!.text;
      expect(JSON.parse(text)).to.deep.include({ valid: true, timezone: 'America/New_York', locale: 'fr-CH' });
      for (const [bad, detail] of BAD) {
        const refused = (await client.callTool({ name: 'render_chart', arguments: { chart: TIME, ...SIZE, ...bad } })) as CallToolResult;
        expect(refused.isError, JSON.stringify(bad)).to.equal(true);
        const err = JSON.parse((refused.content[0] as { text: string }).text) as { error: string; detail: string };
        expect(err.error, JSON.stringify(bad)).to.equal('invalid_config');
        expect(err.detail, JSON.stringify(bad)).to.match(detail);
      }
    } finally {
      await client.close();
    }
  });

  it('offline: `chartshot render --timezone --locale` and a golden case naming them draw what the server draws', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chartshot-zone-cli-'));
    try {
      writeFileSync(join(dir, 'time.chart.json'), JSON.stringify(TIME));
      const cli = (...args: string[]) => spawnSync('node', ['dist/cli.js', ...args], { env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent', TZ: 'Asia/Tokyo', LANG: 'ja_JP.UTF-8' }, encoding: 'utf8', timeout: 240_000 });
      const r = cli('render', join(dir, 'time.chart.json'), '-o', join(dir, 'out.png'), '--width', '420', '--height', '220', '--timezone', 'Europe/Berlin', '--locale', 'de-DE');
      expect(r.status, r.stderr).to.equal(0);
      expect(readFileSync(join(dir, 'out.png')).equals(berlin)).to.equal(true);
      const bad = cli('render', join(dir, 'time.chart.json'), '-o', join(dir, 'bad.png'), '--timezone', 'Mars/Olympus');
      expect([bad.status, bad.stderr.trim()]).to.deep.equal([1, 'chartshot: invalid_config: --timezone "Mars/Olympus" is not a known time zone: use an IANA time zone name such as Europe/Berlin, America/New_York or UTC']);
      // a golden case is a POST /v1/chart body
      const cases = join(dir, 'cases');
      mkdirSync(cases);
      writeFileSync(join(cases, 'berlin.json'), JSON.stringify({ chart: TIME, ...SIZE, ...BERLIN }));
      writeFileSync(join(cases, 'utc.json'), JSON.stringify({ chart: TIME, ...SIZE }));
      const t = cli('test', cases, '--update');
      expect(t.status, t.stdout + t.stderr).to.equal(0);
      expect(readFileSync(join(cases, 'berlin.png')).equals(berlin)).to.equal(true);
      expect(readFileSync(join(cases, 'utc.png')).equals(utc)).to.equal(true);
      expect(readFileSync(join(cases, '.chartshot-renderer'), 'utf8')).to.match(/; timezone=UTC; locale=en-US\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a bad zone or locale: 400 invalid_config naming the field with an example on every route, and no page draws it', async () => {
    const zap = { title: 'Sales', labels: 'Q1,Q2', values: '1,2' };
    const routes: Array<[string, (bad: Record<string, unknown>) => Promise<Response>]> = [
      ['POST /v1/chart', (bad) => post(s.url, '/v1/chart', { chart: TIME, ...SIZE, ...bad }, apiKey(key))],
      ['GET /v1/chart', (bad) => fetch(`${s.url}/v1/chart?${query({ ...(bad as Record<string, string>), api_key: key })}`)],
      ['POST /v1/chart/create', (bad) => post(s.url, '/v1/chart/create', { chart: TIME, ...SIZE, ...bad }, apiKey(key))],
      ['GET /v1/open/chart', (bad) => fetch(`${s.url}/v1/open/chart?${new URLSearchParams({ type: 'bar', data: '1,2', ...(bad as Record<string, string>) })}`)],
      ['POST /v1/zapier/bar-chart', (bad) => post(s.url, '/v1/zapier/bar-chart', { ...zap, ...bad }, apiKey(key))],
      ['POST /v1/zapier/multi-series-chart', (bad) => post(s.url, '/v1/zapier/multi-series-chart', { ...zap, series: [{ name: 'a', values: '1,2' }], ...bad }, apiKey(key))],
    ];
    const renders = s.deps.pool.stats().renders;
    for (const [route, send] of routes) {
      for (const [bad, detail] of BAD) {
        const e = await errorOf(send(bad));
        expect([e.status, e.error], `${route} ${JSON.stringify(bad)}`).to.deep.equal([400, 'invalid_config']);
        expect(e.detail, `${route} ${JSON.stringify(bad)}`).to.match(detail);
      }
      // a number is no name either (JSON bodies)
      if (route.startsWith('POST')) expect(await errorOf(send({ locale: 42 }))).to.deep.include({ status: 400, error: 'invalid_config' });
    }
    expect(s.deps.pool.stats().renders, 'renders drawn for refused requests').to.equal(renders);
    // QuickChart's routes answer with an image of the message and X-quickchart-error
    for (const path of ['/chart', '/chart/create']) {
      for (const [bad, detail] of BAD) {
        const res = await post(s.url, path, { chart: JSON.stringify(TIME), version: '4', key, ...bad });
        expect(res.status, `${path} ${JSON.stringify(bad)}`).to.equal(400);
        expect(res.headers.get('x-quickchart-error'), `${path} ${JSON.stringify(bad)}`).to.match(detail);
      }
    }
  });
});
