// The dashboard driven in Chromium: sign in, create and revoke a key, the usage chart, an
// invoice, the webhook, sign out; at desktop and phone widths, with screenshots saved under
// test/output/dashboard/ (git-ignored) and no Content-Security-Policy violation on any page.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { startTestServer, type TestServer, type Credentials } from '../helpers/server.js';
import { FakeClock, DAY } from '../helpers/clock.js';
import { hmacHex } from '../../src/services/credentials.js';
import type { SqliteStore } from '../../src/store/sqlite/index.js';

const OUT = join(process.cwd(), 'test', 'output', 'dashboard');
const PAGES = ['/dashboard', '/dashboard/usage', '/dashboard/keys', '/dashboard/billing', '/dashboard/settings'];

describe('web dashboard in Chromium', function () {
  this.timeout(180000);
  let s: TestServer;
  let clock: FakeClock;
  let browser: Browser;
  let page: Page;
  let profile: string;
  let a: Credentials;
  let hook: Server;
  let hookUrl: string;
  const received: { body: string; sig: string | undefined }[] = [];
  const problems: string[] = [];

  const text = () => page.$eval('main', (e) => (e as HTMLElement).innerText);
  const shot = (name: string) => page.screenshot({ path: join(OUT, `${name}.png`) as `${string}.png`, fullPage: true });
  const go = async (path: string) => {
    await page.goto(s.url + path, { waitUntil: 'load' });
  };
  const click = async (selector: string) => {
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
  };

  before(async () => {
    mkdirSync(OUT, { recursive: true });
    clock = new FakeClock(Date.UTC(2025, 5, 15, 10));
    s = await startTestServer({ poolSize: 1, webhookAllowPrivate: true }, { clock, schedulerIntervalMs: 0, outbox: { pollMs: 0, timeoutMs: 3000 } });
    a = await s.deps.accounts.createAccount('starter', 'owner@example.com');
    // a year of daily usage, a short chart with hits, a closed period with its invoice
    const db = (s.deps.store as SqliteStore).db;
    const today = Math.floor(clock.now() / DAY);
    const ins = db.prepare('INSERT INTO usage_daily (account_id, day, requests, succeeded, renders, render_ms, cache_hits) VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (let d = 0; d < 365; d++) {
      const gen = 200 + Math.round(150 * Math.sin(d / 9)) + (d % 7 === 0 ? 120 : 0);
      ins.run(a.account_id, today - d, gen + 12, gen + (d % 11), Math.round(gen * 0.7), gen * 0.7 * 95, Math.round(gen * 0.3));
    }
    await s.deps.billing.closePeriodNow(a.account_id);
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString('utf8'), sig: req.headers['x-chartshot-signature'] as string | undefined });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/chartshot`;
    profile = mkdtempSync(join(tmpdir(), 'chartshot-dash-profile-'));
    browser = await puppeteer.launch({
      executablePath: s.config.chromiumPath,
      headless: true,
      userDataDir: profile,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-dev-shm-usage'],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    // the wrong-token sign-in answers 401 and there is no favicon: only policy violations count
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
  });
  after(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await s?.stop();
    await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()));
  });

  it('sends a visitor to the sign-in page, and signs in with a session token', async () => {
    await go('/dashboard');
    expect(new URL(page.url()).pathname).to.equal('/login');
    await shot('login-desktop');
    await page.type('#token', 'wrong-token');
    await click('form[action="/login"] button');
    expect(await text()).to.include('invalid or expired');
    await page.$eval('#token', (e) => ((e as HTMLInputElement).value = ''));
    await page.type('#token', a.session_token);
    await click('form[action="/login"] button');
    expect(new URL(page.url()).pathname).to.equal('/dashboard');
    const t = await text();
    expect(t).to.include(a.account_id).and.include('starter').and.include('generations this period');
    await shot('overview-desktop');
  });

  it('creates a key (shown once, with working copy buttons) and revokes it after confirming', async () => {
    await go('/dashboard/keys');
    await click('form[action="/dashboard/keys"] button');
    const key = await page.$eval('#api-key', (e) => e.textContent ?? '');
    expect(key).to.match(/^live_/);
    // the page's script (allowed by the nonce) showed the copy buttons
    expect(await page.$eval('[data-copy="api-key"]', (e) => (e as HTMLElement).hidden)).to.equal(false);
    await shot('keys-created-desktop');
    const keyId = await page.$eval('#key-id', (e) => e.textContent ?? '');
    await go('/dashboard/keys');
    expect(await text()).to.not.include(key);
    await click(`tr[data-key="${keyId}"] a`);
    expect(await text()).to.include('cannot be undone');
    await click('form[action="/dashboard/keys/revoke"] button');
    expect(await text()).to.include('The key is revoked.');
    expect(await page.$eval(`tr[data-key="${keyId}"]`, (e) => (e as HTMLElement).innerText)).to.include('revoked');
    const r = await fetch(`${s.url}/v1/chart`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{"chart":{"type":"bar","data":{}},"width":100,"height":100}' });
    expect(r.status).to.equal(401);
  });

  it('signs a URL for a config', async () => {
    await go('/dashboard/keys');
    await click('form[action="/dashboard/keys/sign"] button');
    const url = await page.$eval('#signed-url', (e) => (e as HTMLTextAreaElement).value);
    expect(url).to.include('/v1/chart?chart=').and.match(/&sig=[0-9a-f]{64}$/);
    await shot('keys-signed-desktop');
  });

  it('shows usage: the numbers and the chart drawn by the engine, loaded as an image', async () => {
    await go('/dashboard/usage');
    const t = await text();
    expect(t).to.include('last 365 days').and.include('success rate').and.include('cache hit rate');
    const img = await page.$eval('section.chart img', (e) => ({ w: (e as HTMLImageElement).naturalWidth, src: (e as HTMLImageElement).src.slice(0, 26) }));
    expect(img.src).to.equal('data:image/svg+xml;base64,');
    expect(img.w).to.be.greaterThan(100);
    await shot('usage-desktop');
  });

  it('shows billing with the invoice, whose PDF opens', async () => {
    await go('/dashboard/billing');
    const t = await text();
    expect(t).to.include('Amount due').and.include('Invoices').and.include('Active');
    const href = await page.$eval('a[href$="/pdf"]', (e) => (e as HTMLAnchorElement).href);
    // the page itself may not fetch (connect-src is 'none'): the link is opened with the browser's cookie
    const cookie = (await page.cookies()).find((c) => c.name === 'chartshot_dashboard')!;
    expect(cookie).to.include({ httpOnly: true, sameSite: 'Strict' });
    const r = await fetch(href, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('application/pdf');
    expect(Buffer.from(await r.arrayBuffer()).subarray(0, 5).toString()).to.equal('%PDF-');
    await shot('billing-desktop');
  });

  it('changes the webhook and sends a signed test event', async () => {
    await go('/dashboard/settings');
    await page.type('#webhook', hookUrl);
    await click('form[action="/dashboard/settings/webhook"] button');
    expect(await text()).to.include('The webhook URL is saved.');
    expect(await page.$eval('#webhook', (e) => (e as HTMLInputElement).value)).to.equal(hookUrl);
    await click('form[action="/dashboard/settings/webhook/test"] button');
    expect(await text()).to.include('test event is queued');
    await s.deps.outbox.tick();
    expect(received).to.have.length(1);
    expect(received[0]!.sig).to.equal(hmacHex(a.signing_secret, received[0]!.body));
    await shot('settings-desktop');
  });

  it('fits a phone (390 px): no page scrolls sideways', async () => {
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 });
    for (const p of PAGES) {
      await go(p);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(wide, p).to.be.at.most(390);
      await shot(`${p.split('/').pop()}-phone`);
    }
    await page.setViewport({ width: 1280, height: 900 });
  });

  it('signs out: the dashboard asks for sign-in again', async () => {
    await go('/dashboard');
    await click('form[action="/logout"] button');
    expect(new URL(page.url()).pathname).to.equal('/login');
    await go('/dashboard/keys');
    expect(new URL(page.url()).pathname).to.equal('/login');
  });

  it('no page broke its Content-Security-Policy or threw', () => {
    expect(problems).to.deep.equal([]);
  });
});
