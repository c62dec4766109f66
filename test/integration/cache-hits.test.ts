// The short path of cache hits (src/http/fastPath.ts) against a real server: it answers
// memory-tier hits of GET /v1/chart/{id} and of open request targets answered before, with
// exactly the headers, status and bytes the full path gives; everything else still takes the
// full path (validation, store checks).
import { expect } from 'chai';
import { BAR, post, sharedAccount, type TestServer } from '../helpers/server.js';
import { bytes, type Client } from '../helpers/client.js';

let seq = 0;
function uniqueChart(): typeof BAR {
  seq++;
  return { ...BAR, data: { ...BAR.data, labels: [`F${seq}`, `P${process.pid}`, 'C', 'D'] } };
}

/** Every header but the per-response ones (Date, the X-Request-Id value). */
function headersOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (k !== 'date' && k !== 'x-request-id') out[k] = v;
  });
  return out;
}

describe('cache hits take the short path with the same answers', function () {
  let s: TestServer;
  let api: Client;
  let fast: number;

  before(async () => {
    ({ s, api } = await sharedAccount());
    // counts the answers of the short path (the same service instance the server uses)
    const charts = s.deps.shortCharts;
    const open = s.deps.open;
    const chartsServe = charts.serveFromMemory.bind(charts);
    const openServe = open.serveFromMemory.bind(open);
    charts.serveFromMemory = (id) => {
      const r = chartsServe(id);
      if (r) fast++;
      return r;
    };
    open.serveFromMemory = (t) => {
      const r = openServe(t);
      if (r) fast++;
      return r;
    };
  });
  after(() => {
    delete (s.deps.shortCharts as { serveFromMemory?: unknown }).serveFromMemory;
    delete (s.deps.open as { serveFromMemory?: unknown }).serveFromMemory;
  });
  beforeEach(() => {
    fast = 0;
  });

  async function create(format: 'png' | 'svg' = 'png'): Promise<string> {
    const res = await api.post('/v1/chart/create', { chart: uniqueChart(), width: 200, height: 120, format });
    expect(res.status).to.equal(201);
    return ((await res.json()) as { id: string }).id;
  }

  for (const format of ['png', 'svg'] as const) {
    it(`GET /v1/chart/{id} (${format}): 200 and 304 from the short path equal the full path's`, async () => {
      const id = await create(format);
      const full = await fetch(`${s.url}/v1/chart/${id}`);
      expect(fast).to.equal(0);
      const short = await fetch(`${s.url}/v1/chart/${id}`);
      expect(fast).to.equal(1);
      expect(short.status).to.equal(200);
      expect(headersOf(short)).to.deep.equal(headersOf(full));
      expect(short.headers.get('x-cache-tier')).to.equal('edge');
      expect(short.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/).and.not.equal(full.headers.get('x-request-id'));
      expect((await bytes(short)).equals(await bytes(full))).to.equal(true);
      if (format === 'svg') expect(short.headers.get('content-security-policy')).to.contain("default-src 'none'");

      // the same config stored twice: the same image, so one ETag names both
      const chart = uniqueChart();
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await api.post('/v1/chart/create', { chart, width: 200, height: 120, format });
        ids.push(((await res.json()) as { id: string }).id);
      }
      const first = await fetch(`${s.url}/v1/chart/${ids[0]}`);
      const etag = first.headers.get('etag')!;
      fast = 0;
      const full304 = await fetch(`${s.url}/v1/chart/${ids[1]}`, { headers: { 'if-none-match': etag } });
      expect(fast).to.equal(0);
      const short304 = await fetch(`${s.url}/v1/chart/${ids[0]}`, { headers: { 'if-none-match': `W/${etag}, "other"` } });
      expect(fast).to.equal(1);
      expect(full304.status).to.equal(304);
      expect(short304.status).to.equal(304);
      expect(await short304.text()).to.equal('');
      expect(headersOf(short304)).to.deep.equal(headersOf(full304));
    });
  }

  it('a query string, HEAD, an unknown id and a cold tier take the full path', async () => {
    const id = await create();
    await fetch(`${s.url}/v1/chart/${id}`); // seen in the store: the next hit may be short
    const q = await fetch(`${s.url}/v1/chart/${id}?x=1`);
    expect(q.status).to.equal(200);
    const head = await fetch(`${s.url}/v1/chart/${id}`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    const unknown = await fetch(`${s.url}/v1/chart/AAAAAAAAAAAAAAAAAAAAAA`);
    expect(unknown.status).to.equal(404);
    const tooMany = await fetch(`${s.url}/v1/chart/${id}?${Array.from({ length: 101 }, (_, i) => `p${i}=1`).join('&')}`);
    expect(tooMany.status).to.equal(400);
    expect(fast).to.equal(0);
    s.deps.imageCache.clearMemory();
    const cold = await fetch(`${s.url}/v1/chart/${id}`);
    expect(cold.headers.get('x-cache-tier')).to.equal('r2');
    expect(fast).to.equal(0);
  });

  it('open: a target answered before is a short hit with the full hit headers; new targets are validated', async () => {
    const c = encodeURIComponent(JSON.stringify({ type: 'bar', data: { labels: ['x', `o${process.pid}`], datasets: [{ data: [3, 4] }] } }));
    const target = `/v1/open/chart?c=${c}&w=210&h=110`;
    const miss = await fetch(s.url + target);
    expect(miss.status).to.equal(200);
    expect(miss.headers.get('x-cache-tier')).to.equal('miss');
    // the same image by another target: a memory hit through the full path
    const full = await fetch(`${s.url}/v1/open/chart?h=110&w=210&c=${c}`);
    expect(full.headers.get('x-cache-tier')).to.equal('edge');
    expect(fast).to.equal(0);
    const short = await fetch(s.url + target);
    expect(fast).to.equal(1);
    expect(headersOf(short)).to.deep.equal(headersOf(full));
    expect((await bytes(short)).equals(await bytes(full))).to.equal(true);
    const nm = await fetch(s.url + target, { headers: { 'if-none-match': short.headers.get('etag')! } });
    expect(nm.status).to.equal(304);
    expect(nm.headers.get('x-edit-url')).to.equal(full.headers.get('x-edit-url'));
    expect(fast).to.equal(2);

    // a target never answered is checked in full, however close to one that was
    const bad = await fetch(`${s.url}${target}&w=9999`);
    expect(bad.status).to.equal(400);
    const twice = await fetch(`${s.url}${target}&c=${c}`);
    expect(twice.status).to.equal(400);
    expect(((await twice.json()) as { error: string }).error).to.equal('invalid_config');
    expect(fast).to.equal(2);
  });
});
