// Issue 25 item 3: a request is routed, authenticated and rate limited before its body is read,
// and the body is read with its route's limit, within a deadline and the process's budget of
// bytes in flight; an answer given before the body was read whole still reaches a client that
// sends the whole body before reading (lingering close), directly and behind nginx.
import { expect } from 'chai';
import { BAR, startTestServer, type TestServer } from '../helpers/server.js';
import { head, rawConnect } from '../helpers/rawHttp.js';
import { startNginx, type LoadBalancer } from '../helpers/nginx.js';
import { ANONYMOUS_BODY_BYTES } from '../../src/http/body.js';

const MB = 1024 * 1024;
const JSON_TYPE = 'application/json';

/** `bytes` of a JSON-looking body (only its first bytes are ever parsed, if any). */
const filler = (bytes: number) => Buffer.alloc(bytes, 0x20);

describe('HTTP order: route, auth, rate limit, then the body (issue 25)', function () {
  this.timeout(120_000);
  let s: TestServer;
  let key = '';
  let lb: LoadBalancer | undefined;
  before(async () => {
    // a read deadline short enough to wait for, a budget of one and a half 2 MB bodies
    s = await startTestServer({ poolSize: 1, bodyReadTimeoutMs: 2000, maxBodyBytesInFlight: 3 * MB }, { schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
    key = (await s.account('starter')).api_key;
  });
  after(async () => {
    await lb?.stop();
    await s?.stop();
  });

  /** Declares a 2 MB body, sends its first 64 KB, and reads the answer without sending the rest. */
  async function answeredBeforeTheBody(method: string, path: string, headers: Record<string, string> = {}) {
    const read = s.deps.bodyBudget.bytesRead;
    const c = await rawConnect(s.url);
    await c.write(head(method, path, { 'Content-Type': JSON_TYPE, 'Content-Length': 2 * MB, ...headers }));
    await c.write(filler(64 * 1024));
    // the answer arrives while almost 2 MB of the declared body were never sent
    const a = await c.answer;
    c.sock.destroy();
    return { a, bytesRead: s.deps.bodyBudget.bytesRead - read };
  }

  it('a 2 MB body to a path that does not exist: 404 before the body was sent, not a byte of it read', async () => {
    const { a, bytesRead } = await answeredBeforeTheBody('POST', '/v1/no-such-path');
    expect(a.status).to.equal(404);
    expect(JSON.parse(a.body).error).to.equal('not_found');
    // the rest would be thrown away as it arrives, the connection kept (linger.ts discardRest)
    expect(a.headers.connection).to.equal('keep-alive');
    expect(bytesRead).to.equal(0);
  });

  it('a 2 MB body to routes behind a key, without one: 401 before the body was sent, not a byte of it read', async () => {
    for (const path of ['/v1/chart', '/v1/chart/create', '/v1/zapier/bar-chart']) {
      const { a, bytesRead } = await answeredBeforeTheBody('POST', path);
      expect(a.status, path).to.equal(401);
      expect(JSON.parse(a.body).error, path).to.equal('unauthorized');
      expect(bytesRead, path).to.equal(0);
    }
    // a wrong key is no better
    const { a, bytesRead } = await answeredBeforeTheBody('POST', '/v1/chart', { 'X-Api-Key': 'live_notakey' });
    expect(a.status).to.equal(401);
    expect(bytesRead).to.equal(0);
  });

  it('a route anyone may call reads at most ANONYMOUS_BODY_BYTES: a 2 MB declared body is 400 unread', async () => {
    const { a, bytesRead } = await answeredBeforeTheBody('POST', '/signup/anon');
    expect(a.status).to.equal(400);
    expect(JSON.parse(a.body).detail).to.equal(`body larger than ${ANONYMOUS_BODY_BYTES} bytes`);
    expect(bytesRead).to.equal(0);
  });

  it('a body that stops arriving: 400 invalid_input once the read deadline passes, and the connection is closed', async () => {
    const c = await rawConnect(s.url);
    await c.write(head('POST', '/v1/chart', { 'X-Api-Key': key, 'Content-Type': JSON_TYPE, 'Content-Length': 100_000 }));
    await c.write('{"chart":');
    const a = await c.answer;
    expect(a.status).to.equal(400);
    expect(JSON.parse(a.body)).to.deep.equal({ error: 'invalid_input', detail: 'the request body did not arrive whole within 2000 ms' });
    expect(a.headers.connection).to.equal('close');
    // closed by the server (after its bounded drain), the reservation given back
    await c.closed;
    expect(s.deps.bodyBudget.inFlight).to.equal(0);
  });

  it('past the budget of body bytes in flight: 503 service_unavailable with Retry-After, the body not read', async () => {
    // one caller holds 2 MB of the 3 MB budget with a body it is slow to send
    const slow = await rawConnect(s.url);
    await slow.write(head('POST', '/v1/chart', { 'X-Api-Key': key, 'Content-Type': JSON_TYPE, 'Content-Length': 2 * MB }));
    await slow.write('{"chart":');
    while (s.deps.bodyBudget.inFlight < 2 * MB) await new Promise((r) => setTimeout(r, 5));
    const { a, bytesRead } = await answeredBeforeTheBody('POST', '/v1/chart', { 'X-Api-Key': key });
    expect(a.status).to.equal(503);
    expect(JSON.parse(a.body).error).to.equal('service_unavailable');
    expect(Number(a.headers['retry-after'])).to.be.at.least(1);
    expect(bytesRead).to.equal(0);
    // a small body still fits
    const ok = await fetch(`${s.url}/v1/chart`, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': JSON_TYPE }, body: JSON.stringify({ chart: BAR, width: 60, height: 40 }) });
    expect(ok.status).to.equal(200);
    slow.sock.destroy();
    await slow.closed;
    while (s.deps.bodyBudget.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  });

  /** Writes the head and the whole body before reading anything, as urllib does; returns what the client read. */
  async function sentWhole(url: string, path: string, headers: Record<string, string>, body: Buffer) {
    const c = await rawConnect(url);
    await c.write(head('POST', path, { 'Content-Type': JSON_TYPE, 'Content-Length': body.length, ...headers }));
    const wroteAll = await c.write(body);
    const a = await c.answer;
    return { a, wroteAll, closed: c.closed };
  }

  it('an 8 MB body sent whole without Expect: 100-continue: the client reads its 400 (no reset), and the connection serves the next request', async () => {
    const c = await rawConnect(s.url);
    await c.write(head('POST', '/v1/chart', { 'X-Api-Key': key, 'Content-Type': JSON_TYPE, 'Content-Length': 8 * MB }));
    expect(await c.write(filler(8 * MB)), 'the whole body was taken').to.equal(true);
    const a = await c.answer;
    expect(a.status).to.equal(400);
    expect(JSON.parse(a.body)).to.deep.equal({ error: 'invalid_input', detail: `body larger than ${2 * MB} bytes` });
    expect(a.headers.connection).to.equal('keep-alive');
    // the body was thrown away as it arrived: the same connection answers the next request
    let text = '';
    const second = new Promise<string>((resolve) => c.sock.on('data', (d: Buffer) => (text += d.toString('latin1')) && /HTTP\/1\.1 200 [\s\S]*\r\n\r\n/.test(text) && resolve(text)));
    const ok = JSON.stringify({ chart: BAR, width: 60, height: 40 });
    await c.write(head('POST', '/v1/chart', { 'X-Api-Key': key, 'Content-Type': JSON_TYPE, 'Content-Length': ok.length }) + ok);
    expect(await second).to.match(/content-type: image\/png/i);
    c.sock.destroy();
  });

  it('the same without a key, and to a path that does not exist: 401 and 404 read whole', async () => {
    const noKey = await sentWhole(s.url, '/v1/chart', {}, filler(8 * MB));
    expect(noKey.a.status).to.equal(401);
    const nowhere = await sentWhole(s.url, '/nowhere', {}, filler(3 * MB));
    expect(nowhere.a.status).to.equal(404);
  });

  it('behind nginx: an 8 MB body gets its 400 (and a body without a key its 401), not a 502', async () => {
    lb = await startNginx([Number(new URL(s.url).port)]);
    const big = filler(8 * MB);
    const r = await fetch(`${lb.url}/v1/chart`, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': JSON_TYPE }, body: big });
    expect(r.status).to.equal(400);
    expect(((await r.json()) as { detail: string }).detail).to.equal(`body larger than ${2 * MB} bytes`);
    const raw = await sentWhole(lb.url, '/v1/chart', {}, big);
    expect(raw.a.status).to.equal(401);
    raw.closed.catch(() => {});
    // and the upstream connection nginx keeps is fine for the next request
    const ok = await fetch(`${lb.url}/v1/chart`, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': JSON_TYPE }, body: JSON.stringify({ chart: BAR, width: 60, height: 40 }) });
    expect(ok.status).to.equal(200);
  });

  describe('QuickChart POST /chart: the key may be in the body', () => {
    /** A QuickChart body larger than ANONYMOUS_BODY_BYTES, its key (if any) last, as quickchart-js writes it. */
    const large = (withKey: string | undefined) => {
      const values = Array.from({ length: 4000 }, (_, i) => (i * 7919) % 1000);
      const chart = { type: 'line', data: { labels: values.map((_, i) => `p${i}`), datasets: [{ label: 'key', data: values }] } };
      const body = JSON.stringify({ width: 300, height: 150, chart, ...(withKey ? { key: withKey } : {}) });
      expect(body.length).to.be.above(ANONYMOUS_BODY_BYTES);
      return body;
    };

    it('a large body whose key is its own last field renders (quickchart-js)', async () => {
      const r = await fetch(`${s.url}/chart`, { method: 'POST', headers: { 'Content-Type': JSON_TYPE }, body: large(key) });
      expect(r.status, r.headers.get('x-quickchart-error') ?? '').to.equal(200);
      expect(r.headers.get('content-type')).to.equal('image/png');
      expect(r.headers.get('x-ratelimit-limit')).to.not.equal(null);
    });

    it('a large body without a key, or with one that is not a key: 401, never parsed', async () => {
      for (const body of [large(undefined), large('live_notakey')]) {
        const r = await fetch(`${s.url}/chart`, { method: 'POST', headers: { 'Content-Type': JSON_TYPE }, body });
        expect(r.status).to.equal(401);
        expect(r.headers.get('x-quickchart-error')).to.match(/API key|invalid/i);
      }
    });

    it('a "key" inside the chart is not the body\'s key: the body\'s own field decides', async () => {
      // the last "key" in the text is a label's, a valid key that is not the request's
      const values = Array.from({ length: 8000 }, (_, i) => i % 97);
      const chart = { type: 'bar', data: { labels: values.map(String), datasets: [{ data: values }] }, options: { key } };
      const body = JSON.stringify({ width: 200, height: 100, chart });
      expect(body.length).to.be.above(ANONYMOUS_BODY_BYTES);
      const r = await fetch(`${s.url}/chart`, { method: 'POST', headers: { 'Content-Type': JSON_TYPE }, body });
      expect(r.status).to.equal(401);
    });
  });
});
