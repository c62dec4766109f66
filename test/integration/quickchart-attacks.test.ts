// Attacks on QuickChart's routes, each kept as a regression test: template overrides that look
// like code, floods of variants and QR codes, keys in logs, and cost bombs without a key.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';
import { startServer, type Running } from '../../src/main.js';
import { post, startTestServer, testConfig, type Credentials, type TestServer } from '../helpers/server.js';
import { diffRatio, isPng } from '../helpers/images.js';
import { crashDuringRender } from '../helpers/crash.js';
import { waitFor } from '../helpers/poll.js';

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

async function get(base: string, path: string, params: Record<string, string> = {}): Promise<Answer> {
  const q = new URLSearchParams(params).toString();
  const res = await fetch(`${base}${path}${q ? `?${q}` : ''}`);
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

function expectStatus(a: Answer, status: number, message?: RegExp): void {
  expect(a.status, a.headers.get('x-quickchart-error') ?? '').to.equal(status);
  if (message) expect(a.headers.get('x-quickchart-error')).to.match(message);
}

async function create(base: string, key: string, chart: unknown, v: string, size = { width: 200, height: 120 }): Promise<string> {
  const res = await post(base, '/chart/create', { chart: JSON.stringify(chart), v, ...size, devicePixelRatio: 1 }, { 'x-api-key': key });
  expect(res.status).to.equal(200);
  return new URL(((await res.json()) as { url: string }).url).pathname;
}

async function usageCount(base: string, acct: Credentials): Promise<number> {
  const res = await fetch(`${base}/usage/analytics`, { headers: { authorization: `Bearer ${acct.session_token}` } });
  return ((await res.json()) as { currentUsage: { count: number } }).currentUsage.count;
}

const BAR = { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 'x', data: [1, 2], backgroundColor: '#36a2eb' }] }, options: {} };

describe('QuickChart routes under attack', function () {
  this.timeout(120000);
  let text = '';
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  const config = testConfig({ poolSize: 1, quickchartAnonymous: true });
  let s: Running;
  let owner: Credentials;

  before(async () => {
    s = await startServer(config, { log: createLogger('info', out, 'json'), schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
    owner = await s.deps.accounts.createAccount('starter', null);
  });
  after(async () => {
    await s?.close();
    rmSync(config.dataDir, { recursive: true, force: true });
  });

  describe('template overrides that look like functions stay text', () => {
    // what the variant must draw: the same strings in a JavaScript config (code, so not parsed as
    // data: its strings are never revived); onClick changes nothing in a still image
    const reference = (v: string) => {
      const title = "{display:true,text:'(c)=>{return 12345}'}";
      const options = v === '2' ? `{onClick:function(){},title:${title}}` : `{onClick:function(){},plugins:{title:${title}}}`;
      return `{type:'bar',data:{labels:['function(){return 9}','b'],datasets:[{label:'(c)=>{return 8}',data:[1,2],backgroundColor:'#36a2eb'}]},options:${options}}`;
    };
    for (const v of ['2', '3', '4']) {
      it(`Chart.js ${v}: title, labels and labelN draw the literal text of a stored chart that may run functions`, async () => {
        const path = await create(s.url, owner.api_key, BAR, v);
        const variant = await get(s.url, path, { title: '(c)=>{return 12345}', labels: 'function(){return 9},b', label1: '(c)=>{return 8}' });
        expectStatus(variant, 200);
        const literal = await get(s.url, '/chart', { c: reference(v), v, w: '200', h: '120', devicePixelRatio: '1', key: owner.api_key });
        expectStatus(literal, 200);
        expect(diffRatio(variant.body, literal.body)).to.equal(0);
      });
    }

    it('a title that would loop forever renders as text (the page is not held)', async () => {
      const path = await create(s.url, owner.api_key, BAR, '4');
      const a = await get(s.url, path, { title: '(c)=>{while(true){}}', data1: '3,4' });
      expectStatus(a, 200);
      expect(isPng(a.body)).to.equal(true);
    });

    it('colours with function text are refused as colours', async () => {
      const path = await create(s.url, owner.api_key, BAR, '4');
      expectStatus(await get(s.url, path, { backgroundColor1: '(c)=>{while(true){}}' }), 400);
    });
  });

  describe('GET /qr', () => {
    it('an address gets 300 new codes an hour; then 429, while codes made before are still served', async () => {
      for (let i = 0; i < 300; i++) expectStatus(await get(s.url, '/qr', { text: `flood ${i}`, size: '21', margin: '0' }), 200);
      expectStatus(await get(s.url, '/qr', { text: 'flood 300', size: '21', margin: '0' }), 429, /300 new QR codes per hour/);
      expectStatus(await get(s.url, '/qr', { text: 'flood 7', size: '21', margin: '0' }), 200);
    });
  });

  describe('keys in logs', () => {
    it('key= is redacted in the access log and in the line of a failed request', async () => {
      const ok = await get(s.url, '/chart', { c: JSON.stringify(BAR), v: '4', w: '60', h: '40', key: owner.api_key });
      expectStatus(ok, 200);
      const path = await create(s.url, owner.api_key, BAR, '4');
      // a real failure: the renderer process is killed under the render
      const { result } = await crashDuringRender(s, () => get(s.url, path, { title: 'x', key: owner.api_key }));
      expectStatus(result, 500);
      // the failed request's access line is the marker that its lines are written
      const answered = () => text.split('\n').some((l) => /"msg":"request"/.test(l) && /"status":500/.test(l));
      await waitFor('the failed request\'s access line', answered, { stepMs: 50 });
      const lines = text.split('\n').filter((l) => l.includes('/chart'));
      expect(lines.some((l) => /"msg":"request failed"/.test(l) && l.includes('key=[redacted]'))).to.equal(true);
      expect(lines.some((l) => /"msg":"request"/.test(l) && l.includes('/chart?') && l.includes('key=[redacted]'))).to.equal(true);
      expect(text).not.to.contain(owner.api_key);
    });
  });

  describe('keyless /chart: the open endpoint\'s cost limits', () => {
    const keyless = (c: unknown, v = '2') => get(s.url, '/chart', { c: JSON.stringify(c), v, w: '200', h: '120' });

    it('a config over 6144 bytes, as a POST body or in the URL, and a URL over 8192 bytes', async () => {
      const annotations = Array.from({ length: 10000 }, (_, i) => ({ type: 'line', mode: 'horizontal', scaleID: 'y-axis-0', value: i }));
      const big = { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { annotation: { annotations } } };
      const res = await post(s.url, '/chart', { chart: big, v: '2' });
      expect(res.status, res.headers.get('x-quickchart-error') ?? '').to.equal(400);
      // a body that large is refused before it is parsed (issue 25: a keyless body is at most 32 KiB)
      expect(res.headers.get('x-quickchart-error')).to.match(/body larger than 32768 bytes without an API key/);
      const padded = { ...BAR, options: { title: { display: true, text: 'x'.repeat(6500) } } };
      const small = await post(s.url, '/chart', { chart: padded, v: '2' });
      expect(small.status).to.equal(400);
      expect(small.headers.get('x-quickchart-error')).to.match(/bytes; at most 6144 without an API key/);
      expectStatus(await keyless(padded), 400, /at most 6144/);
      expectStatus(await get(s.url, '/chart', { c: JSON.stringify(BAR), ref: 'x'.repeat(9000) }), 400, /at most 8192/);
    });

    const bombs: Array<[string, unknown, RegExp]> = [
      ['a Chart.js 2 stepSize of 0.0001 over 0..1e6', { type: 'line', data: { labels: ['a', 'b'], datasets: [{ data: [0, 1000000] }] }, options: { scales: { yAxes: [{ ticks: { stepSize: 0.0001 } }] } } }, /would make about \d+ ticks/],
      ['a Chart.js 2 time scale by milliseconds over 20 years', { type: 'line', data: { datasets: [{ data: [] }] }, options: { scales: { xAxes: [{ type: 'time', time: { unit: 'millisecond', min: '2000-01-01', max: '2020-01-01' } }] } } }, /millisecond ticks/],
      ['a Chart.js 2 logarithmic scale over 600 decades', { type: 'line', data: { labels: ['a', 'b'], datasets: [{ data: [1, 2] }] }, options: { scales: { yAxes: [{ type: 'logarithmic', ticks: { min: 1e-300, max: 1e300 } }] } } }, /600 decades/],
      ['101 Chart.js 2 annotations', { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { annotation: { annotations: Array.from({ length: 101 }, () => ({ type: 'line', value: 1 })) } } }, /101 annotations; at most 100/],
    ];
    for (const [name, c, reason] of bombs) {
      it(`refuses ${name} with a 400`, async () => {
        expectStatus(await keyless(c), 400, reason);
      });
    }

    it('refuses 101 annotations on Chart.js 4 too', async () => {
      const annotations = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`a${i}`, { type: 'line', yMin: 1, yMax: 1 }]));
      const res = await post(s.url, '/chart', { chart: { ...BAR, options: { plugins: { annotation: { annotations } } } }, v: '4' });
      expect(res.status).to.equal(400);
      expect(res.headers.get('x-quickchart-error')).to.match(/101 annotations/);
    });
  });
});

describe('template variants under a flood', function () {
  this.timeout(120000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ poolSize: 1 });
  });
  after(async () => s?.stop());

  it("20 new variants a chart and 60 an address per hour; the owner's rate limit and usage are untouched", async () => {
    const owner = await s.account('starter');
    const before = await usageCount(s.url, owner);
    const small = { width: 60, height: 40 };
    const paths = [];
    for (let c = 0; c < 4; c++) paths.push(await create(s.url, owner.api_key, BAR, '4', small));
    const counted = await usageCount(s.url, owner);
    expect(counted).to.equal(before + 4);
    for (let i = 0; i < 20; i++) expectStatus(await get(s.url, paths[0]!, { title: `v${i}` }), 200);
    expectStatus(await get(s.url, paths[0]!, { title: 'v20' }), 429, /20 new template variants per hour of one chart/);
    // drawn before: still served
    expectStatus(await get(s.url, paths[0]!, { title: 'v3' }), 200);
    for (let c = 1; c < 3; c++) for (let i = 0; i < 20; i++) expectStatus(await get(s.url, paths[c]!, { title: `v${i}` }), 200);
    // 60 from this address: a fourth chart's first variant is refused by the address's window
    expectStatus(await get(s.url, paths[3]!, { title: 'v0' }), 429, /60 new template variants per hour from one address/);
    // none of it was the owner's: no generation counted, and the owner's own requests pass
    expect(await usageCount(s.url, owner)).to.equal(counted);
    const own = await get(s.url, '/chart', { c: JSON.stringify(BAR), v: '4', w: '60', h: '40', key: owner.api_key });
    expectStatus(own, 200);
  });
});
