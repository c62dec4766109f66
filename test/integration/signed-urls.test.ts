// Signed GET /v1/chart URLs against the real server: every parameter tampered,
// expiry, lifetime, key_id, sig placement; the CLI `sign` command; the API guide's snippets.
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BAR, type Credentials, sharedAccount, startTestServer, type TestServer } from '../helpers/server.js';
import { FakeClock } from '../helpers/clock.js';
import { decodePng, isPng } from '../helpers/images.js';
import { generationsCounted, probeRenders } from '../helpers/renders.js';
import { bytes, errorOf } from '../helpers/client.js';
import { whileRendersHeld } from '../helpers/crash.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

/** Signs independently of src/: HMAC-SHA256 hex over the query string exactly as sent. */
function signed(params: Array<[string, string]>, secret: string): string {
  const q = new URLSearchParams(params).toString();
  return `${q}&sig=${createHmac('sha256', secret).update(q).digest('hex')}`;
}

const nowS = () => Math.floor(Date.now() / 1000);

/** The status and code of a refusal, whose detail never echoes a signature. */
async function refusal(res: Response): Promise<{ status: number; error: string }> {
  const { status, error, detail } = await errorOf(res);
  expect(detail ?? '').not.to.match(/[0-9a-f]{64}/);
  return { status, error };
}

describe('signed URLs: GET /v1/chart with key_id, exp and sig', function () {
  let s: TestServer;
  let acct: Credentials;
  let other: Credentials;
  let base: Array<[string, string]>;
  let good: string;

  before(async () => {
    ({ s, account: acct } = await sharedAccount());
    other = await s.account('starter');
  });

  beforeEach(() => {
    base = [
      ['chart', JSON.stringify({ ...BAR, data: { ...BAR.data, labels: ['s1', 's2', 's3', 's4'] } })],
      ['width', '240'],
      ['height', '120'],
      ['format', 'png'],
      ['backgroundColor', 'white'],
      ['key_id', acct.key_id],
      ['exp', String(nowS() + 600)],
    ];
    good = signed(base, acct.signing_secret);
  });

  const get = (query: string) => fetch(`${s.url}/v1/chart?${query}`);

  it('a valid signed URL renders without an API key', async () => {
    const res = await get(good);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    const buf = await bytes(res);
    expect(isPng(buf)).to.equal(true);
    expect([decodePng(buf).width, decodePng(buf).height]).to.deep.equal([240, 120]);
  });

  it('HEAD on a valid signed URL is authorised like GET (not 401); a bad sig still is 401', async () => {
    const res = await fetch(`${s.url}/v1/chart?${good}`, { method: 'HEAD' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    expect(res.headers.get('x-ratelimit-limit')).to.match(/^\d+$/);
    const [signedPart, sig] = good.split('&sig=') as [string, string];
    const bad = await fetch(`${s.url}/v1/chart?${signedPart}&sig=${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`, { method: 'HEAD' });
    expect(bad.status).to.equal(401);
  });

  it('an SVG signed URL gives image/svg+xml', async () => {
    const q = signed(base.map(([k, v]): [string, string] => [k, k === 'format' ? 'svg' : v]), acct.signing_secret);
    const res = await get(q);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^image\/svg\+xml/);
  });

  describe('tampering with any parameter after signing -> 401 unauthorized', () => {
    const changes: Array<[string, string]> = [
      ['chart', JSON.stringify({ ...BAR, data: { ...BAR.data, labels: ['x1', 'x2', 'x3', 'x4'] } })],
      ['width', '241'],
      ['height', '121'],
      ['format', 'svg'],
      ['backgroundColor', 'black'],
      ['exp', 'LATER'],
    ];
    for (const [name, value] of changes) {
      it(`${name}`, async () => {
        const [signedPart, sig] = good.split('&sig=');
        const params = new URLSearchParams(signedPart);
        params.set(name, value === 'LATER' ? String(Number(params.get('exp')) + 60) : value);
        expect(await refusal(await get(`${params}&sig=${sig}`))).to.deep.equal({ status: 401, error: 'unauthorized' });
      });
    }

    it('key_id: another key of another account, or of the same account', async () => {
      const second = await s.deps.accounts.createKey(acct.account_id);
      for (const keyId of [other.key_id, second.key_id]) {
        const q = good.replace(`key_id=${acct.key_id}`, `key_id=${keyId}`);
        expect(q).not.to.equal(good);
        expect(await refusal(await get(q))).to.deep.equal({ status: 401, error: 'unauthorized' });
      }
    });

    it('sig: one hex digit changed, uppercased, truncated, empty', async () => {
      const [signedPart, sig] = good.split('&sig=') as [string, string];
      const flipped = sig.slice(0, 10) + (sig[10] === 'a' ? 'b' : 'a') + sig.slice(11);
      for (const bad of [flipped, sig.toUpperCase(), sig.slice(0, 63), '']) {
        expect(await refusal(await get(`${signedPart}&sig=${bad}`)), bad).to.deep.equal({ status: 401, error: 'unauthorized' });
      }
    });

    it('a parameter added or removed, or the same query signed with another secret', async () => {
      const [signedPart, sig] = good.split('&sig=') as [string, string];
      expect((await refusal(await get(`${signedPart}&api_key=x&sig=${sig}`))).status).to.equal(401);
      expect((await refusal(await get(`${signedPart.replace('&backgroundColor=white', '')}&sig=${sig}`))).status).to.equal(401);
      expect((await refusal(await get(signed(base, other.signing_secret)))).status).to.equal(401);
      // The same parameters encoded differently are a different string: also refused.
      expect((await refusal(await get(`${signedPart.replace('width=240', 'width=%32%34%30')}&sig=${sig}`))).status).to.equal(401);
    });
  });

  it('exp in the past -> 401 unauthorized', async () => {
    const q = signed(base.map(([k, v]): [string, string] => [k, k === 'exp' ? String(nowS() - 1) : v]), acct.signing_secret);
    expect(await refusal(await get(q))).to.deep.equal({ status: 401, error: 'unauthorized' });
  });

  it('exp more than one year ahead -> 400 invalid_input; just under a year is fine', async () => {
    const far = signed(base.map(([k, v]): [string, string] => [k, k === 'exp' ? String(nowS() + 2 * 365 * 86400) : v]), acct.signing_secret);
    expect(await refusal(await get(far))).to.deep.equal({ status: 400, error: 'invalid_input' });
    const justOver = signed(base.map(([k, v]): [string, string] => [k, k === 'exp' ? String(nowS() + 367 * 86400) : v]), acct.signing_secret);
    expect((await refusal(await get(justOver))).status).to.equal(400);
    const year = signed(base.map(([k, v]): [string, string] => [k, k === 'exp' ? String(nowS() + 364 * 86400) : v]), acct.signing_secret);
    expect((await get(year)).status).to.equal(200);
  });

  it('exp missing or not a number -> 401', async () => {
    const none = signed(base.filter(([k]) => k !== 'exp'), acct.signing_secret);
    expect(await refusal(await get(none))).to.deep.equal({ status: 401, error: 'unauthorized' });
    const word = signed(base.map(([k, v]): [string, string] => [k, k === 'exp' ? 'tomorrow' : v]), acct.signing_secret);
    expect((await refusal(await get(word))).status).to.equal(401);
  });

  it('unknown, missing or revoked key_id -> 401 unauthorized', async () => {
    const unknown = signed(base.map(([k, v]): [string, string] => [k, k === 'key_id' ? 'key_doesnotexist' : v]), acct.signing_secret);
    expect(await refusal(await get(unknown))).to.deep.equal({ status: 401, error: 'unauthorized' });
    const missing = signed(base.filter(([k]) => k !== 'key_id'), acct.signing_secret);
    expect(await refusal(await get(missing))).to.deep.equal({ status: 401, error: 'unauthorized' });
    const victim = await s.account('starter');
    const q = signed(base.map(([k, v]): [string, string] => [k, k === 'key_id' ? victim.key_id : v]), victim.signing_secret);
    expect((await get(q)).status).to.equal(200);
    await s.deps.accounts.revokeKey(victim.key_id);
    expect(await refusal(await get(q))).to.deep.equal({ status: 401, error: 'unauthorized' });
  });

  it('sig not last -> 401 unauthorized', async () => {
    const [signedPart, sig] = good.split('&sig=') as [string, string];
    const params = new URLSearchParams(signedPart);
    const width = params.get('width')!;
    params.delete('width');
    // sig moved before width, and sig first: neither is accepted.
    expect(await refusal(await get(`${params}&sig=${sig}&width=${width}`))).to.deep.equal({ status: 401, error: 'unauthorized' });
    expect(await refusal(await get(`sig=${sig}&${signedPart}`))).to.deep.equal({ status: 401, error: 'unauthorized' });
  });

  it('a signed render counts one generation against the key\'s account', async () => {
    // counted by the store, as billing reads it: the key's account +1, the other account untouched
    const before = await generationsCounted(s, acct.account_id);
    const otherBefore = await generationsCounted(s, other.account_id);
    const res = await fetch(`${s.url}/v1/chart?${good}`);
    expect(res.status).to.equal(200);
    expect(await generationsCounted(s, acct.account_id)).to.include({ used: before.used + 1, reserved: 0 });
    expect((await fetch(`${s.url}/v1/chart?${good.replace(/sig=.*/, 'sig=' + '0'.repeat(64))}`)).status).to.equal(401);
    expect(await generationsCounted(s, acct.account_id)).to.include({ used: before.used + 1, reserved: 0 });
    expect(await generationsCounted(s, other.account_id)).to.deep.equal(otherBefore);
  });

  it('identical signed renders in flight at once run once', async () => {
    // a URL not fetched before (one fetched within the minute is answered from the signed-URL cache)
    const fresh = signed(base.map(([k, v]): [string, string] => [k, k === 'exp' ? String(nowS() + 601) : v]), acct.signing_secret);
    const probe = probeRenders(s);
    try {
      // held in a real busy pool (frozen renderers) until all four joined the render
      const res = await whileRendersHeld(s, () => Promise.all(Array.from({ length: 4 }, () => get(fresh))), () => s.deps.renderer.callersInFlight(), 4);
      expect(res.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
      expect(probe.count).to.equal(1);
    } finally {
      probe.restore();
    }
  });

  describe('making signed URLs', function () {
    this.timeout(60000);
    let dir: string;

    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'chartshot-sign-'));
    });

    after(() => rmSync(dir, { recursive: true, force: true }));

    async function fetchPng(url: string): Promise<{ width: number; height: number }> {
      expect(url.startsWith(`${s.url}/v1/chart?`), url).to.equal(true);
      expect(url).to.match(/&sig=[0-9a-f]{64}$/);
      const res = await fetch(url);
      expect(res.status, await res.clone().text()).to.equal(200);
      const png = decodePng(await bytes(res));
      return { width: png.width, height: png.height };
    }

    // The CLI is run from source (tsx), so the test does not depend on a fresh dist/ build.
    const cli = (...args: string[]) =>
      run(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli.ts'), ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent' } });

    it('chartshot sign prints a signed URL the server accepts', async () => {
      const file = join(dir, 'chart.json');
      writeFileSync(file, JSON.stringify(BAR));
      const { stdout } = await cli('sign', '--key-id', acct.key_id, '--secret', acct.signing_secret, '--expires-in', '600', file, '--width', '320', '--height', '160', '--base-url', s.url);
      expect(await fetchPng(stdout.trim())).to.deep.equal({ width: 320, height: 160 });
    });

    it('chartshot sign with bad input: a one-line error and a non-zero exit', async function () {
      this.timeout(300_000); // eight CLI processes at once: a bound for a loaded machine
      const file = join(dir, 'chart.json');
      writeFileSync(file, JSON.stringify(BAR));
      const cases = [
        ['sign', '--key-id', acct.key_id, '--expires-in', '600', file],
        ['sign', '--key-id', acct.key_id, '--secret', 'x', '--expires-in', 'soon', file],
        ['sign', '--key-id', acct.key_id, '--secret', 'x', '--expires-in', '600', join(dir, 'missing.json')],
        // Values the server can only refuse: caught before a URL is printed.
        ['sign', '--key-id', acct.key_id, '--secret', 'x', '--expires-in', String(400 * 86400), file],
        ['sign', '--key-id', acct.key_id, '--secret', 'x', '--expires-in', '600', file, '--width', 'abc'],
        ['sign', '--key-id', acct.key_id, '--secret', 'x', '--expires-in', '600', file, '--height', '0'],
        ['sign', '--key-id', acct.key_id, '--secret', 'x', '--expires-in', '600', file, '--format', 'gif'],
        ['sign', '--key-id', acct.key_id, '--secret', 'x', '--expires-in', '600', file, '--background', 'url(x)'],
      ];
      const results = await Promise.all(cases.map((args) => cli(...args).then(() => null, (e: { code: number; stderr: string }) => e)));
      for (const [i, err] of results.entries()) {
        expect(err, cases[i]!.join(' ')).not.to.equal(null);
        expect(err!.code).to.be.greaterThan(0);
        expect(err!.stderr.trim().split('\n')).to.have.length(1);
        expect(err!.stderr).to.match(/^chartshot: /);
      }
    });

    /** The first fenced block of `lang` in docs/api.md's "Short URLs and signed URLs" section. */
    function guideSnippet(lang: string): string {
      const guide = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
      const section = guide.split(/^## /m).find((part) => part.startsWith('Short URLs and signed URLs'));
      expect(section, 'docs/api.md section').to.be.a('string');
      const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section!);
      expect(m, `${lang} snippet`).not.to.equal(null);
      return m![1]!;
    }

    const snippetEnv = () => ({ ...process.env, KEY_ID: acct.key_id, SIGNING_SECRET: acct.signing_secret, BASE_URL: s.url });

    it('the Node snippet of docs/api.md signs a URL the server accepts', async () => {
      const file = join(dir, 'sign.mjs');
      writeFileSync(file, guideSnippet('js'));
      const { stdout } = await run(process.execPath, [file], { env: snippetEnv() });
      expect(await fetchPng(stdout.trim())).to.deep.equal({ width: 600, height: 300 });
    });

    it('the Python snippet of docs/api.md signs a URL the server accepts', async function () {
      const python = await run('python3', ['--version']).then(
        () => 'python3',
        () => null,
      );
      expect(python, 'python3 on PATH: the API guide\'s Python snippet is run with it').to.equal('python3');
      const file = join(dir, 'sign.py');
      writeFileSync(file, guideSnippet('python'));
      const { stdout } = await run(python!, [file], { env: snippetEnv() });
      expect(await fetchPng(stdout.trim())).to.deep.equal({ width: 600, height: 300 });
    });
  });
});

describe('signed URLs: expiry is judged by the server clock', function () {
  this.timeout(60000);
  const DAYS_AHEAD = 2 * 86_400_000;
  let s: TestServer;
  let clock: FakeClock;

  before(async () => {
    clock = new FakeClock(Date.now() + DAYS_AHEAD);
    s = await startTestServer({ poolSize: 1 }, { clock, schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
  });
  after(async () => {
    await s?.stop();
  });

  it('a URL unexpired by the wall clock but expired by the server clock is refused; one valid by the server clock renders', async () => {
    const acct = await s.account('starter');
    const url = (expS: number) =>
      `${s.url}/v1/chart?${signed([['chart', JSON.stringify(BAR)], ['width', '120'], ['height', '80'], ['key_id', acct.key_id], ['exp', String(expS)]], acct.signing_secret)}`;
    const wallExp = Math.floor(Date.now() / 1000) + 600;
    expect((await fetch(url(wallExp))).status).to.equal(401);
    expect((await fetch(url(Math.floor(clock.now() / 1000) + 600))).status).to.equal(200);
  });
});
