// The typed client (chartshot/client) against a running server: render, short URLs, signed URLs
// and the API's error codes as ChartshotError.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Chartshot, ChartshotError } from '../../src/client/index.js';
import { sharedAccount, BAR, type TestServer } from '../helpers/server.js';
import { bytes } from '../helpers/client.js';
import { decodePng } from '../helpers/images.js';

describe('the typed client', function () {
  this.timeout(60_000);
  let s: TestServer;
  let client: Chartshot;
  before(async () => {
    const a = await sharedAccount('starter');
    s = a.s;
    client = new Chartshot({ baseUrl: s.url + '/', apiKey: a.key, keyId: a.account.key_id, signingSecret: a.account.signing_secret });
  });

  it('render: the image, its format and the renderer fingerprint', async () => {
    const png = await client.render({ chart: BAR, width: 300, height: 150 });
    expect(png.format).to.equal('png');
    expect(png.contentType).to.equal('image/png');
    expect(decodePng(png.body)).to.include({ width: 300, height: 150 });
    expect(png.renderer).to.match(/^chartjs=4\.6\.1; chromium=[\d.]+; fonts=[0-9a-f]{8}; timezone=UTC; locale=en-US$/);
    const svg = await client.render({ c: JSON.stringify(BAR), width: 300, height: 150, format: 'svg' });
    expect(svg.format).to.equal('svg');
    expect(svg.body.toString('utf8')).to.match(/^<svg /);
  });

  it('create: a short URL that serves the same image without credentials; signUrl: a URL the server accepts', async () => {
    const req = { chart: BAR, width: 220, height: 120, backgroundColor: 'white' };
    const direct = await client.render(req);
    const short = await client.create(req);
    expect(short.url).to.match(/\/v1\/chart\/[A-Za-z0-9_-]{16,64}$/);
    expect(short.url.endsWith('/' + short.id)).to.equal(true);
    const served = await fetch(short.url.replace(/^https?:\/\/[^/]+/, s.url));
    expect(served.status).to.equal(200);
    expect((await bytes(served)).equals(direct.body)).to.equal(true);
    const signed = client.signUrl(req, { inSeconds: 300 });
    const viaSig = await fetch(signed);
    expect(viaSig.status).to.equal(200);
    expect((await bytes(viaSig)).equals(direct.body)).to.equal(true);
    // a changed parameter breaks the signature
    const tampered = await fetch(signed.replace('width=220', 'width=221'));
    expect(tampered.status).to.equal(401);
  });

  it('errors are ChartshotError with the code, status and detail of the answer', async () => {
    const fail = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as ChartshotError);
    const cases: Array<[Promise<unknown>, string, number]> = [
      [new Chartshot({ baseUrl: s.url, apiKey: 'live_nope' }).render({ chart: BAR, width: 10, height: 10 }), 'unauthorized', 401],
      [client.render({ chart: BAR, width: 0, height: 10 }), 'invalid_dimensions', 400],
      [client.render({ width: 10, height: 10 }), 'chart_required', 400],
      [client.create({ chart: { type: 'nope' }, width: 10, height: 10 }), 'invalid_input', 400],
    ];
    for (const [p, code, status] of cases) {
      const e = await fail(p);
      expect(e, code).to.be.instanceOf(ChartshotError);
      expect(e, code).to.include({ code, status });
      expect(e!.detail, code).to.be.a('string').and.not.equal('');
    }
  });

  it("resolves as 'chartshot/client' and as 'chartshot' from the built package, with type declarations", () => {
    if (!existsSync('dist/client/index.js')) throw new Error('dist/client missing: run npm run build');
    expect(existsSync('dist/client/index.d.ts')).to.equal(true);
    const code = "const a = await import('chartshot/client'); const b = await import('chartshot'); console.log(typeof a.Chartshot, a.Chartshot === b.Chartshot, typeof a.ChartshotError);";
    const r = spawnSync('node', ['--input-type=module', '-e', code], { encoding: 'utf8' });
    expect(r.stdout.trim(), r.stderr).to.equal('function true function');
  });
});
