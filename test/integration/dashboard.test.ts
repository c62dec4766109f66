// The web dashboard over HTTP: sign-in (cookie, CSRF, throttling, expiry, sign-out), the keys,
// usage, billing and settings pages and their forms, against a real server.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BAR, startTestServer, type TestServer } from '../helpers/server.js';
import { FakeClock, DAY } from '../helpers/clock.js';
import { PageClient, csrfOf, freshIp } from '../helpers/dashboard.js';
import { hashSecret, hmacHex } from '../../src/services/credentials.js';
import type { SqliteStore } from '../../src/store/sqlite/index.js';

describe('web dashboard', function () {
  this.timeout(120000);
  let s: TestServer;
  let clock: FakeClock;
  const browser = (extra: Record<string, string> = {}) => new PageClient(s.url, freshIp(), extra);
  const signedIn = async (plan: 'trial' | 'starter' | 'growth' = 'starter') => {
    const a = await s.account(plan);
    const b = browser();
    await b.signIn(a.session_token);
    return { a, b };
  };

  before(async () => {
    clock = new FakeClock(Date.UTC(2025, 3, 1, 9));
    s = await startTestServer({ poolSize: 1, trustProxy: true, webhookAllowPrivate: true }, { clock, schedulerIntervalMs: 0, outbox: { pollMs: 0, timeoutMs: 3000 } });
  });
  after(async () => {
    await s?.stop();
  });

  describe('sign-in', () => {
    it('GET /dashboard without a session redirects to /login', async () => {
      const r = await browser().get('/dashboard');
      expect(r.status).to.equal(302);
      expect(r.location).to.equal('/login');
      for (const p of ['/dashboard/keys', '/dashboard/usage', '/dashboard/billing', '/dashboard/settings']) expect((await browser().get(p)).location).to.equal('/login');
    });

    it('paths and methods the pages do not take: signed out to /login (a POST 403), signed in 404; exact case and trailing slash', async () => {
      const { b } = await signedIn();
      const send = async (method: string, path: string, cookie = '') => {
        const res = await fetch(s.url + path, { method, redirect: 'manual', headers: { cookie, 'x-forwarded-for': freshIp() } });
        return { status: res.status, location: res.headers.get('location'), csp: res.headers.get('content-security-policy'), text: await res.text() };
      };
      const session = `chartshot_dashboard=${b.jar.get('chartshot_dashboard')}`;
      for (const [method, path] of [['GET', '/dashboard/nope'], ['PUT', '/dashboard'], ['DELETE', '/dashboard/keys'], ['GET', '/dashboard/']]) {
        const out = await send(method!, path!);
        expect([out.status, out.location], `${method} ${path} signed out`).to.deep.equal([302, '/login']);
        const inn = await send(method!, path!, session);
        expect(inn.status, `${method} ${path} signed in`).to.equal(404);
        expect(JSON.parse(inn.text)).to.deep.equal({ error: 'not_found', detail: `no route for ${method} ${path}` });
        expect(inn.csp, 'a page path keeps the page headers').to.include("default-src 'none'");
      }
      const post = await send('POST', '/dashboard/nope');
      expect(post.status).to.equal(403);
      expect(post.text).to.include('Form expired');
      // an invoice id outside the pattern is no route, not a lookup
      expect((await send('GET', '/dashboard/billing/invoices/a%41/pdf', session)).status).to.equal(404);
      for (const [method, path] of [['GET', '/login/nope'], ['PUT', '/login'], ['PUT', '/logout'], ['GET', '/login/']]) {
        const r = await send(method!, path!, session);
        expect(r.status, `${method} ${path}`).to.equal(404);
        expect(r.csp, `${method} ${path}`).to.include("default-src 'none'");
      }
      // the pages match their exact path: another case is another (unknown) path
      const upper = await send('GET', '/DASHBOARD', session);
      expect(upper.status).to.equal(404);
      expect(upper.csp).to.equal(null);
    });

    it('the login page carries a CSRF token bound to a cookie and a strict CSP whose nonce is the only way to run script', async () => {
      const r = await browser().get('/login');
      expect(r.status).to.equal(200);
      const csp = r.headers.get('content-security-policy')!;
      expect(csp).to.include("default-src 'none'").and.include("frame-ancestors 'none'").and.not.include('unsafe-inline');
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
      const scripts = [...r.text.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
      expect(scripts.length).to.be.greaterThan(0);
      for (const attrs of scripts) expect(attrs).to.equal(` nonce="${nonce}"`);
      expect(r.headers.getSetCookie().join('\n')).to.match(/chartshot_login=[^;]+; Path=\/login; Max-Age=3600; HttpOnly; SameSite=Strict/);
      expect(csrfOf(r.text).length).to.be.greaterThan(20);
    });

    it('a sign-in POST without the CSRF token, or with a wrong one, is 403', async () => {
      const a = await s.account();
      const b = browser();
      await b.get('/login');
      expect((await b.post('/login', { token: a.session_token })).status).to.equal(403);
      expect((await b.post('/login', { token: a.session_token, _csrf: 'x'.repeat(32) })).status).to.equal(403);
      // a token from another browser's cookie does not do either
      const other = browser();
      const otherCsrf = csrfOf((await other.get('/login')).text);
      expect((await b.post('/login', { token: a.session_token, _csrf: otherCsrf })).status).to.equal(403);
      expect(b.jar.has('chartshot_dashboard')).to.equal(false);
    });

    it('a session token signs in with a new, hashed, HttpOnly SameSite=Strict session cookie (not the token itself)', async () => {
      const a = await s.account();
      const b = browser();
      const r = await b.signIn(a.session_token);
      const cookie = r.headers.getSetCookie().find((c) => c.startsWith('chartshot_dashboard='))!;
      expect(cookie).to.match(/; HttpOnly; SameSite=Strict$/);
      expect(cookie).to.match(/Max-Age=43200/);
      const token = b.jar.get('chartshot_dashboard')!;
      expect(token).to.not.equal(a.session_token);
      const db = (s.deps.store as SqliteStore).db;
      const rows = db.prepare('SELECT token_hash, account_id FROM dashboard_sessions WHERE account_id = ?').all(a.account_id) as { token_hash: string }[];
      expect(rows).to.have.length(1);
      expect(rows[0]!.token_hash).to.equal(hashSecret(token));
      const home = await b.get('/dashboard');
      expect(home.status).to.equal(200);
      expect(home.text).to.include(a.account_id).and.include('Overview');
    });

    it('the cookie is Secure when the request came over https through the trusted proxy', async () => {
      const a = await s.account();
      const b = browser({ 'x-forwarded-proto': 'https' });
      const r = await b.signIn(a.session_token);
      expect(r.headers.getSetCookie().find((c) => c.startsWith('chartshot_dashboard='))).to.match(/; Secure/);
    });

    it('a wrong token is refused with the form again; failed attempts per address are limited (429 with Retry-After), a good token included', async () => {
      const a = await s.account();
      const b = browser();
      const first = await b.submit('/login', '/login', { token: 'not-a-session-token' });
      expect(first.status).to.equal(401);
      expect(first.text).to.include('invalid or expired');
      for (let i = 1; i < 10; i++) expect((await b.submit('/login', '/login', { token: `wrong-${i}` })).status).to.equal(401);
      const blocked = await b.submit('/login', '/login', { token: a.session_token });
      expect(blocked.status).to.equal(429);
      expect(Number(blocked.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(blocked.text).to.include('too many failed sign-ins');
      // another address is not affected
      await browser().signIn(a.session_token);
      // a minute later one more attempt is allowed
      clock.advance(61_000);
      await b.signIn(a.session_token);
    });

    it('successful sign-ins are not counted as failures', async () => {
      const a = await s.account();
      const ip = freshIp();
      for (let i = 0; i < 12; i++) await new PageClient(s.url, ip).signIn(a.session_token);
    });

    it('the session expires after 12 hours', async () => {
      const { b } = await signedIn();
      clock.advance(11 * 3_600_000);
      expect((await b.get('/dashboard')).status).to.equal(200);
      clock.advance(3_600_000 + 1);
      expect((await b.get('/dashboard')).location).to.equal('/login');
    });

    it('signing out revokes the session: the old cookie no longer works', async () => {
      const { a, b } = await signedIn();
      const token = b.jar.get('chartshot_dashboard')!;
      expect((await b.post('/logout', { _csrf: 'wrong' })).status).to.equal(403);
      const out = await b.submit('/dashboard', '/logout');
      expect(out.status).to.equal(303);
      expect(out.location).to.equal('/login');
      expect(b.jar.has('chartshot_dashboard')).to.equal(false);
      const replay = new PageClient(s.url, freshIp());
      replay.jar.set('chartshot_dashboard', token);
      expect((await replay.get('/dashboard')).location).to.equal('/login');
      expect(await s.deps.store.dashboard.findSession(hashSecret(token))).to.equal(null);
      // the CLI's session token itself still works for the JSON endpoints
      expect((await fetch(`${s.url}/billing/info`, { headers: { authorization: `Bearer ${a.session_token}` } })).status).to.equal(200);
    });

    it('every dashboard POST without the session CSRF token is 403 and changes nothing', async () => {
      const { a, b } = await signedIn();
      const before = (await s.deps.accounts.listKeys(a.account_id)).length;
      expect((await b.post('/dashboard/keys', {})).status).to.equal(403);
      expect((await b.post('/dashboard/keys', { _csrf: 'A'.repeat(32) })).status).to.equal(403);
      expect((await b.post('/dashboard/settings/email', { email: 'x@example.com' })).status).to.equal(403);
      expect((await s.deps.accounts.listKeys(a.account_id)).length).to.equal(before);
      // another session's token is not this session's
      const other = await signedIn();
      const theirs = csrfOf((await other.b.get('/dashboard')).text);
      expect((await b.post('/dashboard/keys', { _csrf: theirs })).status).to.equal(403);
    });

    it('a GET /login while signed in goes to the dashboard', async () => {
      const { b } = await signedIn();
      const r = await b.get('/login');
      expect(r.status).to.equal(302);
      expect(r.location).to.equal('/dashboard');
    });
  });

  describe('API keys', () => {
    it('creates a key shown once with its signing secret; the key works; the list shows prefix, id, created', async () => {
      const { a, b } = await signedIn();
      const r = await b.submit('/dashboard/keys', '/dashboard/keys');
      expect(r.status).to.equal(200);
      const key = /id="api-key">([^<]+)</.exec(r.text)![1]!;
      const keyId = /id="key-id">([^<]+)</.exec(r.text)![1]!;
      const secret = /id="signing-secret">([^<]+)</.exec(r.text)![1]!;
      expect(key).to.match(/^live_/);
      expect(secret.length).to.be.greaterThan(20);
      expect(r.text).to.include('data-copy="api-key"');
      const ok = await fetch(`${s.url}/v1/chart`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ chart: BAR, width: 200, height: 100 }) });
      expect(ok.status).to.equal(200);
      const list = await b.get('/dashboard/keys');
      expect(list.text).to.not.include(key);
      expect(list.text).to.not.include(secret);
      expect(list.text).to.include(keyId).and.include(key.slice(0, 9)).and.include(a.key_id);
      const row = new RegExp(`<tr data-key="${keyId}">.*?</tr>`, 's').exec(list.text)![0];
      const minute = new Date(clock.now()).toISOString().slice(0, 16).replace('T', ' ');
      expect(row.match(new RegExp(minute, 'g'))).to.have.length(2); // created, and last used
      const unused = new RegExp(`<tr data-key="${a.key_id}">.*?</tr>`, 's').exec(list.text)![0];
      expect(unused).to.include('<td>-</td>');
    });

    it('revokes after a confirmation page; the key stops working; another account\'s key cannot be revoked', async () => {
      const { a, b } = await signedIn();
      const confirm = await b.get(`/dashboard/keys/revoke?key_id=${a.key_id}`);
      expect(confirm.status).to.equal(200);
      expect(confirm.text).to.include('cannot be undone');
      const r = await b.post('/dashboard/keys/revoke', { _csrf: csrfOf(confirm.text), key_id: a.key_id });
      expect(r.status).to.equal(303);
      expect(r.location).to.equal('/dashboard/keys?done=revoked');
      expect((await b.get(r.location!)).text).to.include('The key is revoked.').and.include('revoked</td>');
      const refused = await fetch(`${s.url}/v1/chart`, { method: 'POST', headers: { 'x-api-key': a.api_key, 'content-type': 'application/json' }, body: JSON.stringify({ chart: BAR, width: 200, height: 100 }) });
      expect(refused.status).to.equal(401);
      const other = await s.account();
      const theirs = await b.submit('/dashboard/keys', '/dashboard/keys/revoke', { key_id: other.key_id });
      expect(theirs.status).to.equal(404);
      expect((await s.deps.accounts.listKeys(other.account_id))[0]!.revokedAt).to.equal(null);
    });

    it('the plan\'s key limit is enforced with a clear message (trial: one key)', async () => {
      const { b } = await signedIn('trial');
      const page = await b.get('/dashboard/keys');
      expect(page.text).to.include('The Trial plan allows 1 API key');
      expect(page.text).to.not.include('action="/dashboard/keys"><input');
      const r = await b.post('/dashboard/keys', { _csrf: csrfOf(page.text) });
      expect(r.status).to.equal(403);
      expect(r.text).to.include('allows 1 API keys');
    });

    it('signs a URL for a pasted config with the API\'s signing code; the URL renders', async () => {
      const { a, b } = await signedIn();
      const r = await b.submit('/dashboard/keys', '/dashboard/keys/sign', { key_id: a.key_id, config: JSON.stringify(BAR), width: '300', height: '150', format: 'png', expires_in_days: '2' });
      expect(r.status, r.text.slice(0, 500)).to.equal(200);
      const url = /id="signed-url" readonly>([^<]+)</.exec(r.text)![1]!.replace(/&amp;/g, '&');
      expect(url).to.match(new RegExp(`^${s.config.publicBaseUrl}/v1/chart\\?chart=`)).and.match(/&sig=[0-9a-f]{64}$/);
      const img = await fetch(url.replace(s.config.publicBaseUrl, s.url));
      expect(img.status).to.equal(200);
      expect(img.headers.get('content-type')).to.equal('image/png');
      const bad = await b.submit('/dashboard/keys', '/dashboard/keys/sign', { key_id: a.key_id, config: '{"type":"nope"}', width: '300', height: '150', format: 'png', expires_in_days: '2' });
      expect(bad.status).to.equal(400);
      expect(bad.text).to.include('config.type must be one of');
      expect(bad.text).to.include('{&quot;type&quot;:&quot;nope&quot;}');
    });
  });

  describe('usage', () => {
    it('shows the analytics numbers, an inlined SVG chart drawn by the engine (as an image), and the top charts', async () => {
      const { a, b } = await signedIn();
      const db = (s.deps.store as SqliteStore).db;
      const today = Math.floor(clock.now() / DAY);
      const ins = db.prepare('INSERT INTO usage_daily (account_id, day, requests, succeeded, renders, render_ms, cache_hits) VALUES (?, ?, ?, ?, ?, ?, ?)');
      for (let d = 0; d < 365; d++) ins.run(a.account_id, today - d, 110, 100, 80, 80 * 120, 20);
      const created = await fetch(`${s.url}/v1/chart/create`, { method: 'POST', headers: { 'x-api-key': a.api_key, 'content-type': 'application/json' }, body: JSON.stringify({ chart: BAR, width: 200, height: 100 }) });
      const chartId = ((await created.json()) as { url: string }).url.split('/').pop()!;
      await s.deps.store.chartMetrics.addBatch([{ chartId, hitCount: 42, errorCount: 1, renderCount: 2, renderMsTotal: 300, lastAccessed: clock.now() }]);
      const r = await b.get('/dashboard/usage');
      expect(r.status).to.equal(200);
      expect(r.text).to.include('data-stat="success"><b>90.9%</b>');
      expect(r.text).to.include('data-stat="render"><b>120 ms</b>');
      expect(r.text).to.include('data-stat="cache"><b>20%</b>');
      expect(r.text).to.include('data-stat="limit"><b>100,000</b>');
      expect(r.text).to.include('last 365 days');
      const svg = Buffer.from(/src="data:image\/svg\+xml;base64,([^"]+)"/.exec(r.text)![1]!, 'base64').toString('utf8');
      expect(svg).to.match(/<svg[\s>]/);
      expect(svg).to.not.match(/<script/i);
      expect(r.text).to.include(chartId).and.include('>42<');
      expect(Buffer.byteLength(r.text)).to.be.below(200 * 1024);
    });

    it("covers the plan's whole analytics retention: three years of weekly bars on Growth", async () => {
      const { b } = await signedIn('growth');
      const r = await b.get('/dashboard/usage');
      expect(r.text).to.include('Weekly generations and errors, last 1095 days');
      expect(Buffer.byteLength(r.text)).to.be.below(200 * 1024);
    });
  });

  describe('billing', () => {
    it('shows plan, cycle, period, amount due and invoices with their PDFs', async () => {
      const { a, b } = await signedIn();
      await s.deps.billing.closePeriodNow(a.account_id);
      const r = await b.get('/dashboard/billing');
      expect(r.status).to.equal(200);
      expect(r.text).to.include('data-field="plan">starter').and.include('monthly').and.include('data-state="active"');
      const link = /href="(\/dashboard\/billing\/invoices\/[^"]+\/pdf)"/.exec(r.text)![1]!;
      const pdf = await fetch(s.url + link, { headers: { cookie: `chartshot_dashboard=${b.jar.get('chartshot_dashboard')}` } });
      expect(pdf.status).to.equal(200);
      expect(pdf.headers.get('content-type')).to.equal('application/pdf');
      expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).to.equal('%PDF-');
      // another account's invoice is not found through this session
      const other = await signedIn();
      expect((await other.b.get(link)).status).to.equal(404);
    });

    it('changes plan and requests cancellation through the billing service', async () => {
      const { a, b } = await signedIn();
      const up = await b.submit('/dashboard/billing', '/dashboard/billing/plan', { plan: 'growth', cycle: 'monthly' });
      expect(up.location).to.equal('/dashboard/billing?done=plan');
      expect((await s.deps.store.accounts.find(a.account_id))!.plan).to.equal('growth');
      const events = (await s.deps.store.billing.events(a.account_id)).map((e) => e.kind);
      expect(events).to.include('upgrade');
      const cancel = await b.submit('/dashboard/billing', '/dashboard/billing/cancel');
      expect(cancel.location).to.equal('/dashboard/billing?done=cancelled');
      const page = await b.get('/dashboard/billing?done=cancelled');
      expect(page.text).to.include('data-state="cancelling"').and.include('Restore the subscription');
      const bad = await b.submit('/dashboard/billing', '/dashboard/billing/plan', { plan: 'platinum', cycle: 'monthly' });
      expect(bad.status).to.equal(400);
    });

    it('past due shows the dunning step; suspended shows what still works and refuses key creation', async () => {
      const { a, b } = await signedIn();
      await s.deps.billing.paymentFailed(a.account_id);
      let page = await b.get('/dashboard/billing');
      expect(page.text).to.include('data-state="past_due"').and.include('first payment attempt failed');
      clock.advance(10 * DAY);
      await s.deps.billing.runScheduler();
      await b.signIn(a.session_token);
      page = await b.get('/dashboard/billing');
      expect(page.text).to.include('data-state="suspended"').and.include('Still works').and.include('Does not work');
      const keys = await b.get('/dashboard/keys');
      expect(keys.text).to.include('The account is suspended: no new keys.');
      expect((await b.post('/dashboard/keys', { _csrf: csrfOf(keys.text) })).status).to.equal(403);
    });
  });

  describe('settings', () => {
    let hook: Server;
    let got: { body: string; sig: string | undefined }[];
    let hookUrl: string;
    before(async () => {
      got = [];
      hook = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          got.push({ body: Buffer.concat(chunks).toString('utf8'), sig: req.headers['x-chartshot-signature'] as string | undefined });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
      hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    });
    after(() => new Promise<void>((r) => hook.close(() => r())));

    it('saves the webhook URL and delivers a signed test event to it', async () => {
      const { a, b } = await signedIn();
      const r = await b.submit('/dashboard/settings', '/dashboard/settings/webhook', { url: hookUrl });
      expect(r.location).to.equal('/dashboard/settings?done=webhook');
      expect((await s.deps.store.billing.get(a.account_id))!.webhookUrl).to.equal(hookUrl);
      const t = await b.submit('/dashboard/settings', '/dashboard/settings/webhook/test');
      expect(t.location).to.equal('/dashboard/settings?done=test');
      await s.deps.outbox.tick();
      const mine = got.filter((g) => g.body.includes(a.account_id));
      expect(mine).to.have.length(1);
      const body = JSON.parse(mine[0]!.body) as Record<string, unknown>;
      expect(body).to.include({ event: 'usage_threshold', threshold: 80, account_id: a.account_id, test: true });
      expect(mine[0]!.sig).to.equal(hmacHex(a.signing_secret, mine[0]!.body));
    });

    it('refuses a webhook URL the rules refuse, with the reason on the page', async () => {
      const { a, b } = await signedIn();
      const r = await b.submit('/dashboard/settings', '/dashboard/settings/webhook', { url: 'ftp://example.com/x' });
      expect(r.status).to.equal(400);
      expect(r.text).to.include('http(s) URL');
      expect((await s.deps.store.billing.get(a.account_id))?.webhookUrl ?? null).to.equal(null);
    });

    it('saves the e-mail address for usage warnings and refuses a malformed one', async () => {
      const { a, b } = await signedIn();
      const ok = await b.submit('/dashboard/settings', '/dashboard/settings/email', { email: 'ops@example.com' });
      expect(ok.location).to.equal('/dashboard/settings?done=email');
      expect((await s.deps.store.accounts.find(a.account_id))!.email).to.equal('ops@example.com');
      const bad = await b.submit('/dashboard/settings', '/dashboard/settings/email', { email: 'not an address' });
      expect(bad.status).to.equal(400);
      expect((await b.get('/dashboard/settings')).text).to.include('value="ops@example.com"');
    });
  });

  it('every page renders for a trial account, and for a suspended one', async () => {
    const trial = await signedIn('trial');
    for (const p of ['/dashboard', '/dashboard/keys', '/dashboard/usage', '/dashboard/billing', '/dashboard/settings']) {
      expect((await trial.b.get(p)).status, p).to.equal(200);
    }
    expect((await trial.b.get('/dashboard/settings')).text).to.include('Usage webhooks are for paid plans.');
    const { a, b } = await signedIn();
    await s.deps.store.accounts.update(a.account_id, { status: 'suspended' });
    for (const p of ['/dashboard', '/dashboard/keys', '/dashboard/usage', '/dashboard/billing', '/dashboard/settings']) {
      expect((await b.get(p)).status, p).to.equal(200);
    }
  });

  describe('escaping', () => {
    it('values from the store are escaped on every page', async () => {
      const { a, b } = await signedIn();
      await s.deps.store.accounts.update(a.account_id, { email: '"><script>alert(1)</script>@example.com' });
      for (const p of ['/dashboard', '/dashboard/keys', '/dashboard/usage', '/dashboard/billing', '/dashboard/settings']) {
        const r = await b.get(p);
        expect(r.status, p).to.equal(200);
        expect(r.text, p).to.not.include('<script>alert(1)');
      }
    });
  });
});
