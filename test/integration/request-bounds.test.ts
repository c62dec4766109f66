// Every request's parsing cost is bounded.
// (a) a query string of thousands of repeated keys is refused after a linear parse, before auth;
// (b) a config sent as a JSON string (body field or query parameter) nested thousands deep is
//     400 invalid_input, never a 500 from a stack overflow;
// (c) an oversized body (declared or chunked) is answered 400 and the connection closed.
import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { countParams, parseQuery } from '../../src/http/query.js';
import { apiKey } from '../helpers/client.js';

/** The server's CPU time (same process) spent answering one request, in ms. */
async function cpuMs(f: () => Promise<Response>): Promise<{ ms: number; res: Response; body: unknown }> {
  const c0 = process.cpuUsage();
  const res = await f();
  const body = await res.json().catch(() => null);
  const c = process.cpuUsage(c0);
  return { ms: (c.user + c.system) / 1000, res, body };
}

describe('request parsing bounds', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => (s = await startTestServer({ poolSize: 1, maxBodyBytes: 16384 }, { schedulerIntervalMs: 0, outbox: { pollMs: 0 } })));
  after(() => s?.stop());

  describe('(a) query strings: parsed once, linearly, at most 100 parameters', () => {
    it('parseQuery keeps repeated keys as arrays, "__proto__" as data, and refuses past the cap', () => {
      const q = parseQuery('a=1&b=2&a=3&__proto__=x&&c')!;
      expect(q.a).to.deep.equal(['1', '3']);
      expect(q.b).to.equal('2');
      expect(q.c).to.equal('');
      expect(Object.prototype.hasOwnProperty.call(q, '__proto__')).to.equal(true);
      expect(Object.getPrototypeOf(q)).to.equal(Object.prototype);
      expect(countParams('&&a&&b&', 10)).to.equal(2);
      expect(parseQuery(Array(100).fill('k=v').join('&'))).to.not.equal(null);
      expect(parseQuery(Array(101).fill('k=v').join('&'))).to.equal(null);
    });

    it('7,000 repeated keys without credentials: 400 invalid_input at a small cost (was 0.45 s, quadratic); the next request is served', async () => {
      const attack = '/v1/chart?' + Array(7000).fill('a').join('&');
      // warm both paths so JIT compilation is not measured
      await (await fetch(s.url + '/v1/chart?width=1')).arrayBuffer();
      await (await fetch(s.url + attack)).arrayBuffer();
      const normal = await cpuMs(() => fetch(s.url + '/v1/chart?width=10&height=10'));
      expect(normal.res.status).to.equal(401);
      const costs: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await cpuMs(() => fetch(s.url + attack));
        expect(r.res.status).to.equal(400);
        expect(r.body).to.deep.equal({ error: 'invalid_input', detail: 'the query string has more than 100 parameters' });
        costs.push(r.ms);
      }
      const median = costs.sort((a, b) => a - b)[2]!;
      // Quadratic parsing cost about 100 times a normal request (348 ms vs 4 ms measured); linear
      // costs about one (the 14 KB request line is read and split once). Compared in the same
      // run, not to a clock.
      expect(median, `attack ${median.toFixed(1)} ms of CPU vs a normal 401 ${normal.ms.toFixed(1)} ms`).to.be.below(Math.max(10 * normal.ms, 20));
      const c = await s.account('starter');
      const ok = await post(s.url, '/v1/chart', { chart: BAR, width: 60, height: 40 }, apiKey(c.api_key));
      expect(ok.status).to.equal(200);
    });

    it('the cap sits before auth on every route: 101 parameters -> 400 even with a valid key; 100 pass', async () => {
      const c = await s.account('starter');
      const base = `/v1/chart?api_key=${c.api_key}&width=60&height=40&chart=${encodeURIComponent(JSON.stringify(BAR))}`;
      const pad = (n: number) => Array.from({ length: n }, (_, i) => `x${i}=1`).join('&');
      const ok = await fetch(`${s.url}${base}&${pad(96)}`);
      expect(ok.status).to.equal(200);
      const over = await fetch(`${s.url}${base}&${pad(97)}`);
      expect(over.status).to.equal(400);
      expect(await over.json()).to.include({ error: 'invalid_input' });
      const status = await fetch(`${s.url}/v1/status?${pad(101)}`);
      expect(status.status).to.equal(400);
    });

    it('the open endpoint answers with its own code: invalid_config (and url_too_long first)', async () => {
      const many = await fetch(`${s.url}/v1/open/chart?${Array(500).fill('a').join('&')}`);
      expect(many.status).to.equal(400);
      expect(await many.json()).to.include({ error: 'invalid_config' });
      const long = await fetch(`${s.url}/v1/open/chart?${Array(5000).fill('a').join('&')}`);
      expect(long.status).to.equal(400);
      expect(await long.json()).to.include({ error: 'url_too_long' });
    });

    it('a signed URL is still verified over the raw query string', async () => {
      const { signQuery } = await import('../../src/services/signing.js');
      const c = await s.account('starter');
      const qs = signQuery({ chart: JSON.stringify(BAR), width: '60', height: '40' }, c.key_id, c.signing_secret, Math.floor(Date.now() / 1000) + 600);
      expect((await fetch(`${s.url}/v1/chart?${qs}`)).status).to.equal(200);
      expect((await fetch(`${s.url}/v1/chart?${qs.replace('width=60', 'width=61')}`)).status).to.equal(401);
    });
  });

  describe('(b) nesting limit on configs sent as JSON strings', () => {
    const deep = (n: number) => `{"type":"bar","data":{"datasets":[{"data":[1]}]},"options":{"x":${'['.repeat(n)}${']'.repeat(n)}}}`;

    it('POST /v1/chart, POST /v1/chart/create and GET /v1/chart with a 5,000-deep chart string: 400 invalid_input, never 500', async () => {
      const c = await s.account('starter');
      for (const path of ['/v1/chart', '/v1/chart/create']) {
        const res = await post(s.url, path, { chart: deep(5000), width: 60, height: 40 }, apiKey(c.api_key));
        expect(res.status, path).to.equal(400);
        expect(await res.json()).to.deep.equal({ error: 'invalid_input', detail: 'chart nests deeper than 64 levels' });
      }
      const get = await fetch(`${s.url}/v1/chart?api_key=${c.api_key}&width=60&height=40&c=${deep(5000)}`);
      expect(get.status).to.equal(400);
      expect(await get.json()).to.deep.equal({ error: 'invalid_input', detail: 'c nests deeper than 64 levels' });
      // within the limit, the same shape renders
      const fine = await post(s.url, '/v1/chart', { chart: deep(20), width: 60, height: 40 }, apiKey(c.api_key));
      expect(fine.status).to.equal(200);
    });
  });

  describe('(c) an oversized body is answered and the connection closed', () => {
    // bodies are read after authentication: an authenticated caller's body meets the size limit
    let key = '';
    before(async () => (key = (await s.account('starter')).api_key));
    /** Sends `head` (and then `more()` while the socket is writable); resolves with what was read once the server closes. */
    function exchange(head: string, more?: (sock: Socket) => void): Promise<{ text: string; closed: boolean }> {
      return new Promise((resolve, reject) => {
        const { port } = new URL(s.url);
        const sock = connect(Number(port), '127.0.0.1');
        let text = '';
        const timer = setTimeout(() => {
          sock.destroy();
          resolve({ text, closed: false });
        }, 20_000);
        sock.on('data', (d) => (text += d.toString('latin1')));
        sock.on('error', () => undefined); // an RST after the answer is fine: we check what arrived
        sock.on('close', () => {
          clearTimeout(timer);
          resolve({ text, closed: true });
        });
        sock.on('connect', () => {
          sock.write(head);
          more?.(sock);
        });
        sock.on('timeout', () => reject(new Error('timeout')));
      });
    }

    const expectAnswered = (r: { text: string; closed: boolean }, close = true) => {
      expect(r.text).to.match(/^HTTP\/1\.1 400 /);
      // a chunked body may still end: its answer keeps the connection while the rest is thrown away
      if (close) expect(r.text).to.match(/\r\nconnection: close\r\n/i);
      expect(r.text).to.contain('"error":"invalid_input"').and.contain('body larger than 16384 bytes');
      expect(r.closed, 'the server closed the connection').to.equal(true);
    };

    it('a declared Content-Length over the limit: 400 invalid_input, Connection: close, closed without reading the body', async () => {
      const r = await exchange(
        `POST /v1/chart HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\nConnection: keep-alive\r\nContent-Length: 100000000\r\n\r\n{"chart":`,
      );
      expectAnswered(r);
    });

    it('a chunked body that grows past the limit: 400 invalid_input, closed (past the bound of what is thrown away) while the client keeps sending', async () => {
      let sent = 0;
      const r = await exchange(`POST /v1/chart/create HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`, (sock) => {
        const chunk = Buffer.alloc(1024, 0x20);
        const pump = () => {
          // an endless body: only the server closing the socket ends this
          while (!sock.destroyed && sent < 200_000_000) {
            sent += chunk.length;
            if (!sock.write(`400\r\n${chunk.toString()}\r\n`)) return void sock.once('drain', pump);
          }
        };
        pump();
      });
      expectAnswered(r, false);
      expect(sent).to.be.below(200_000_000);
    });

    it('a request refused before its body is read (too many query parameters) is closed, not drained', async () => {
      const q = Array(200).fill('a').join('&');
      const r = await exchange(`POST /v1/chart?${q} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{"chart":`);
      expect(r.text).to.match(/^HTTP\/1\.1 400 /);
      expect(r.text).to.match(/\r\nconnection: close\r\n/i);
      expect(r.closed).to.equal(true);
    });

    it('a body within the limit on the same kind of connection is still served', async () => {
      const body = JSON.stringify({ chart: BAR, width: 60, height: 40 });
      const r = await exchange(`POST /v1/chart HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      expect(r.text).to.match(/^HTTP\/1\.1 200 /);
    });
  });
});
