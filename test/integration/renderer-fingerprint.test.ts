// X-Chartshot-Renderer: Chart.js, Chromium and fonts on every image answer (fresh renders, short
// charts, open images, cache hits), the same in /v1/status and `chartshot --version`.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { sharedAccount, BAR, type TestServer } from '../helpers/server.js';
import { apiKey, post } from '../helpers/client.js';
import { chartjsVersions, fontsHash, RendererFingerprint } from '../../src/render/fingerprint.js';
import { signQuery } from '../../src/services/signing.js';

const HEADER = /^chartjs=4\.6\.1; chromium=\d+\.\d+\.\d+\.\d+; fonts=[0-9a-f]{8}; timezone=UTC; locale=en-US$/;

function cliVersion(): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn('node', ['dist/cli.js', '--version'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
  });
}

describe('the renderer fingerprint', function () {
  this.timeout(60_000);
  let s: TestServer;
  let key: string;
  let expected: string;
  let account: { key_id: string; signing_secret: string };
  before(async () => {
    const a = await sharedAccount('starter');
    s = a.s;
    key = a.key;
    account = a.account;
    const version = await s.deps.pool.currentBrowser()!.version();
    expected = `chartjs=4.6.1; chromium=${/(\d+\.\d+\.\d+\.\d+)/.exec(version)![1]}; fonts=${await fontsHash()}; timezone=UTC; locale=en-US`;
  });

  it('names the Chart.js version, the browser version and a hash of the fonts', () => {
    expect(expected).to.match(HEADER);
    expect(s.deps.pool.fingerprint().header()).to.equal(expected);
    const pkg = (name: string) => (JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8')) as { version: string }).version;
    expect(chartjsVersions()).to.deep.equal({ 2: pkg('chartjs2'), 3: pkg('chartjs3'), 4: pkg('chart.js') });
    expect(chartjsVersions()).to.deep.equal({ 2: '2.9.4', 3: '3.9.1', 4: '4.6.1' });
    const fp = new RendererFingerprint({ chartjs: chartjsVersions(), chromium: '156.0.8078.79', fonts: '0123abcd' });
    expect(fp.header(2)).to.equal('chartjs=2.9.4; chromium=156.0.8078.79; fonts=0123abcd; timezone=UTC; locale=en-US');
    expect(fp.header(3)).to.equal('chartjs=3.9.1; chromium=156.0.8078.79; fonts=0123abcd; timezone=UTC; locale=en-US');
    // TIMEZONE and LOCALE decide the pixels of every request that names neither
    const berlin = new RendererFingerprint({ chartjs: chartjsVersions(), chromium: '156.0.8078.79', fonts: '0123abcd', timezone: 'Europe/Berlin', locale: 'de-DE' });
    expect(berlin.header()).to.equal('chartjs=4.6.1; chromium=156.0.8078.79; fonts=0123abcd; timezone=Europe/Berlin; locale=de-DE');
  });

  it('is on every image answer: POST and signed GET /v1/chart, short charts (full path, fast path, 304), open images', async () => {
    const seen: Array<[string, string | null, number]> = [];
    const note = (what: string, r: Response) => seen.push([what, r.headers.get('x-chartshot-renderer'), r.status]);
    for (const format of ['png', 'svg']) note(`POST ${format}`, await post(s.url, '/v1/chart', { chart: BAR, width: 200, height: 100, format }, apiKey(key)));
    const exp = Math.floor(Date.now() / 1000) + 600;
    note('signed GET', await fetch(`${s.url}/v1/chart?${signQuery({ chart: JSON.stringify(BAR), width: '120', height: '80' }, account.key_id, account.signing_secret, exp)}`));
    const created = (await (await post(s.url, '/v1/chart/create', { chart: BAR, width: 150, height: 90 }, apiKey(key))).json()) as { url: string };
    const path = new URL(created.url).pathname;
    const one = await fetch(s.url + path);
    note('short chart', one);
    note('short chart again', await fetch(s.url + path));
    note('short chart 304', await fetch(s.url + path, { headers: { 'if-none-match': one.headers.get('etag')! } }));
    s.deps.imageCache.clearMemory();
    note('short chart from the store', await fetch(s.url + path));
    const open = `/v1/open/chart?c=${encodeURIComponent(JSON.stringify({ type: 'bar', data: { labels: ['f', `p${process.pid}`], datasets: [{ data: [1, 2] }] } }))}&w=120&h=80`;
    note('open', await fetch(s.url + open));
    note('open again', await fetch(s.url + open));
    expect(seen.map(([w, , st]) => [w, st])).to.deep.equal([
      ['POST png', 200], ['POST svg', 200], ['signed GET', 200], ['short chart', 200], ['short chart again', 200],
      ['short chart 304', 304], ['short chart from the store', 200], ['open', 200], ['open again', 200],
    ]);
    for (const [what, value] of seen) expect(value, what).to.equal(expected);
  });

  // Found by an outside probe: stored images were all served with this instance's Chart.js 4
  // value, and QuickChart's /chart/create draws with Chart.js 2 by default. What drew an image is
  // now stored with it (images.renderer, the shared tier's header) and served from every tier.
  it('a stored chart says what drew it: a QuickChart short URL drawn by Chart.js 2, from every tier', async () => {
    const v2 = expected.replace('chartjs=4.6.1', 'chartjs=2.9.4');
    const chart = { type: 'bar', data: { labels: ['a', `p${process.pid}`], datasets: [{ label: 'x', data: [1, 2] }] } };
    const made = await post(s.url, '/chart/create', { chart, key, width: 130, height: 70 });
    expect(made.status).to.equal(200);
    const path = new URL(((await made.json()) as { url: string }).url).pathname;
    const seen: Array<[string, string | null, number]> = [];
    const note = (what: string, r: Response) => seen.push([what, r.headers.get('x-chartshot-renderer'), r.status]);
    const one = await fetch(s.url + path);
    note('render/{id}', one);
    note('render/{id} again', await fetch(s.url + path));
    note('render/{id} 304', await fetch(s.url + path, { headers: { 'if-none-match': one.headers.get('etag')! } }));
    s.deps.imageCache.clearMemory();
    note('render/{id} from the store', await fetch(s.url + path));
    expect(seen.map(([w, , st]) => [w, st])).to.deep.equal([['render/{id}', 200], ['render/{id} again', 200], ['render/{id} 304', 304], ['render/{id} from the store', 200]]);
    for (const [what, value] of seen) expect(value, what).to.equal(v2);
    // a fresh render of the same chart says the same
    const fresh = await post(s.url, '/chart', { chart, key, width: 130, height: 70 });
    expect(fresh.headers.get('x-chartshot-renderer')).to.equal(v2);
  });

  it('is not on error answers', async () => {
    const r = await post(s.url, '/v1/chart', { chart: BAR, width: 0, height: 100 }, apiKey(key));
    expect(r.status).to.equal(400);
    expect(r.headers.get('x-chartshot-renderer')).to.equal(null);
  });

  it('/v1/status and `chartshot --version` show the same', async () => {
    const status = (await (await fetch(`${s.url}/v1/status`)).json()) as { renderer?: { fingerprint?: string } };
    expect(status.renderer?.fingerprint).to.equal(expected);
    const v = (await cliVersion()).split('\n');
    expect(v[0]).to.match(/^chartshot \d+\.\d+\.\d+ \(build .+\)$/);
    expect(v[1]).to.equal(expected);
  });
});
