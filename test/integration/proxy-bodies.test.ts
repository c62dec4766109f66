// A body over the limit behind a reverse proxy (issue 49 item 4): real nginx written the way
// people write it (client_max_body_size 50m), with request buffering on and off, a keep-alive
// upstream or one connection per request, clients that keep their connection or not; and the
// shipped deploy/nginx.conf. Every time the client gets chartshot's 400 with its error object
// (or the proxy's own 413 with the same object, past the proxy's limit), never a 502 or 500 or
// nothing, and the proxy goes on serving renders on the connections it keeps.
import { expect } from 'chai';
import { Agent, request } from 'node:http';
import { BAR, startTestServer, type TestServer } from '../helpers/server.js';
import { startNginx, type LoadBalancer, type NginxOptions } from '../helpers/nginx.js';

const MB = 1024 * 1024;

interface Answer {
  status: number;
  type: string;
  body: string;
}

/** POSTs `body` (Content-Length) through `agent` and reads the whole answer. */
function post(base: string, path: string, key: string, body: Buffer | string, agent: Agent | false): Promise<Answer> {
  const u = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'X-Api-Key': key, 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('latin1') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('a body over the limit behind nginx: the 400 with its error object, whatever the proxy configuration', function () {
  this.timeout(300_000);
  let s: TestServer;
  let key = '';
  const small = JSON.stringify({ chart: BAR, width: 60, height: 40 });
  before(async () => {
    s = await startTestServer({ poolSize: 1 }, { schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
    key = (await s.account('enterprise')).api_key;
  });
  after(async () => s?.stop());

  const generic: Array<[string, NginxOptions]> = [
    ['request buffering on, keep-alive upstream', { clientMaxBodyMb: 50 }],
    ['request buffering off, keep-alive upstream', { clientMaxBodyMb: 50, requestBuffering: false }],
    ['request buffering on, a connection per request upstream', { clientMaxBodyMb: 50, upstreamKeepalive: false }],
    ['request buffering off, a connection per request upstream', { clientMaxBodyMb: 50, requestBuffering: false, upstreamKeepalive: false }],
  ];
  for (const [name, o] of generic) {
    it(`client_max_body_size 50m, ${name}: 8 MB and 40 MB bodies get the 400, keep-alive clients or not; renders go on`, async () => {
      let lb: LoadBalancer | undefined;
      const keep = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        lb = await startNginx([Number(new URL(s.url).port)], o);
        for (const size of [8 * MB, 40 * MB]) {
          const body = Buffer.alloc(size, 0x20);
          for (const agent of [keep, false] as const) {
            const a = await post(lb.url, '/v1/chart', key, body, agent).catch((err: Error) => ({ status: 0, type: '', body: err.message }));
            const what = `${size / MB} MB, ${agent ? 'keep-alive client' : 'a connection per request'}: ${a.body.slice(0, 200)} / ${lb.output().slice(-500)}`;
            expect(a.status, what).to.equal(400);
            expect(a.type).to.match(/^application\/json/);
            expect(JSON.parse(a.body), what).to.deep.equal({ error: 'invalid_input', detail: `body larger than ${2 * MB} bytes` });
            // the next request on the same client connection (and nginx's upstream connection) renders.
            // With request buffering off, nginx closes a keep-alive client's connection once it has
            // answered when the answer came before the body's end (a loaded machine sends 40 MB
            // slower than chartshot refuses it): a keep-alive client then meets a closed connection
            // before any answer and sends again on a new one, as clients do with a stale connection.
            const again = () => post(lb!.url, '/v1/chart', key, small, agent);
            const next = await again()
              .catch((err: Error) => {
                if (agent && o.requestBuffering === false && /socket hang up|ECONNRESET/.test(err.message)) return again();
                throw err;
              })
              .catch((err: Error) => ({ status: 0, type: '', body: `${err.message} (the request after ${what})` }));
            expect(next.status, `after ${what}: ${next.body.slice(0, 300)}`).to.equal(200);
            expect(next.type).to.equal('image/png');
          }
        }
      } finally {
        keep.destroy();
        await lb?.stop();
      }
    });
  }

  it('the shipped deploy/nginx.conf: under its 8m limit chartshot answers the 400; over it nginx answers 413 with the same error object', async () => {
    let lb: LoadBalancer | undefined;
    // the shipped file names two upstream servers: both are this one
    const port = Number(new URL(s.url).port);
    try {
      lb = await startNginx([port, port], { shipped: true });
      const under = await post(lb.url, '/v1/chart', key, Buffer.alloc(6 * MB, 0x20), false);
      expect(under.status, under.body.slice(0, 200)).to.equal(400);
      expect(JSON.parse(under.body)).to.deep.equal({ error: 'invalid_input', detail: `body larger than ${2 * MB} bytes` });
      const over = await post(lb.url, '/v1/chart', key, Buffer.alloc(9 * MB, 0x20), false).catch((err: Error) => ({ status: 0, type: '', body: err.message }));
      expect(over.status, over.body.slice(0, 200)).to.equal(413);
      expect(over.type).to.match(/^application\/json/);
      expect((JSON.parse(over.body) as { error: string }).error).to.equal('invalid_input');
      expect((await post(lb.url, '/v1/chart', key, small, false)).status).to.equal(200);
    } finally {
      await lb?.stop();
    }
  });
});
