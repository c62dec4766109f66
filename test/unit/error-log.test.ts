// How the error mapper logs a 5xx (src/http/errors.ts): a 503 answered to a client that already
// left is an info line without a stack (a client that leaves on purpose must not fill the error
// log); a 503 to a client still there, and a 500 whatever the client did, stay errors. Real
// sockets and a real Koa app; no Chromium.
import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Koa from 'koa';
import { errorMapper } from '../../src/http/errors.js';
import { createLogger } from '../../src/log.js';
import { AppError, serviceUnavailable } from '../../src/errors.js';

interface Line {
  level: number;
  msg: string;
  err?: { stack?: string };
}

describe('error log of a request whose client left', () => {
  let server: http.Server;
  let port = 0;
  let lines: Line[] = [];
  let thrown: () => Error = () => serviceUnavailable(1, 'the client went away');
  let answered: Promise<void> = Promise.resolve();
  /** Called when the next request reaches the route. */
  let onStart: () => void = () => {};

  before(async () => {
    const out = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Line);
        done();
      },
    });
    const answer = errorMapper(createLogger('info', out, 'json'));
    const app = new Koa();
    app.use(async (ctx) => {
      let done!: () => void;
      answered = new Promise((r) => (done = r));
      onStart();
      try {
        // the route fails once the client has left, or at once when ?stay is given
        if (!ctx.query.stay) await new Promise((r) => ctx.req.socket.once('close', r));
        throw thrown();
      } catch (err) {
        await answer(ctx, err);
      } finally {
        done();
      }
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise((r) => server.close(r)));
  beforeEach(() => {
    lines = [];
  });

  /** A request whose client closes its connection once the route has it, before the answer. */
  async function leave(): Promise<void> {
    const started = new Promise<void>((r) => (onStart = r));
    const s = net.connect(port, '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    s.write('GET /v1/chart HTTP/1.1\r\nhost: x\r\n\r\n');
    await started;
    s.destroy();
    await answered;
  }

  it('a 503 to a client that left: one info line, no stack', async () => {
    thrown = () => serviceUnavailable(1, 'the client went away');
    await leave();
    expect(lines.map((l) => [l.level, l.msg])).to.deep.equal([[30, 'request ended: the client went away']]);
    expect(lines[0]!.err).to.equal(undefined);
  });

  it('a 503 to a client still waiting: an error line with the stack, and the answer', async () => {
    thrown = () => serviceUnavailable(1, 'server busy, try again');
    const res = await fetch(`http://127.0.0.1:${port}/v1/chart?stay=1`);
    expect(res.status).to.equal(503);
    await answered;
    expect(lines.map((l) => [l.level, l.msg])).to.deep.equal([[50, 'request failed']]);
    expect(lines[0]!.err?.stack).to.match(/service_unavailable/);
  });

  it('a 500 stays an error even when the client left', async () => {
    thrown = () => new AppError(500, 'internal_error', 'internal error');
    await leave();
    expect(lines.map((l) => [l.level, l.msg])).to.deep.equal([[50, 'request failed']]);
  });
});
