// "Sign in with Google" against a real OpenID Connect provider (oidc-provider, started here on a
// loopback port as the issuer): code flow with PKCE, state and nonce, the id_token checked
// against the provider's JWKS, the account matched by its verified e-mail address.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, sign, type JsonWebKey } from 'node:crypto';
import Provider from 'oidc-provider';
import puppeteer from 'puppeteer-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { PageClient, freshIp } from '../helpers/dashboard.js';
import { GoogleSignIn } from '../../src/services/dashboard/google.js';
import { systemClock } from '../../src/clock.js';
import { redactUrl } from '../../src/log.js';
import { waitFor } from '../helpers/poll.js';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const KID = 'test-rs256';
const privateJwk = { ...(privateKey.export({ format: 'jwk' }) as JsonWebKey), kid: KID, alg: 'RS256', use: 'sig' };

/** Signs claims as the provider would (its own key), or with `key` (a forger's). */
function jwt(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'RS256', kid: KID }, key = privateKey): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const data = `${part(header)}.${part(claims)}`;
  return `${data}.${header.alg === 'none' ? '' : sign('sha256', Buffer.from(data), key).toString('base64url')}`;
}

describe('Google sign-in (OpenID Connect, against a local provider)', function () {
  this.timeout(120000);
  let s: TestServer;
  let issuer: string;
  let providerServer: Server;
  /** Who signs in at the provider next. */
  let user = { sub: 'u1', email: 'owner@example.com', email_verified: true };
  const CLIENT = { id: 'chartshot-dashboard', secret: 'a-client-secret-for-tests' };

  before(async () => {
    const [pPort, sPort] = [await freePort(), await freePort()];
    // another site than the dashboard (127.0.0.1), as Google is: the way back is a cross-site navigation
    issuer = `http://localhost:${pPort}`;
    const base = `http://127.0.0.1:${sPort}`;
    const provider = new Provider(issuer, {
      clients: [{
        client_id: CLIENT.id, client_secret: CLIENT.secret, redirect_uris: [`${base}/login/google/callback`],
        token_endpoint_auth_method: 'client_secret_post', response_types: ['code'], grant_types: ['authorization_code'],
      }],
      jwks: { keys: [privateJwk] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'] },
      conformIdTokenClaims: false,
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ ...user, sub }) }),
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      pkce: { required: () => true },
    });
    // The provider's own login and consent: whoever `user` is signs in and consents at once.
    const callback = provider.callback();
    providerServer = createServer((req, res) => {
      if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
      void (async () => {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === 'login') {
          await provider.interactionFinished(req, res, { login: { accountId: user.sub } }, { mergeWithLastSubmission: false });
          return;
        }
        const grant = new provider.Grant({ accountId: user.sub, clientId: CLIENT.id });
        grant.addOIDCScope('openid email');
        await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
      })().catch((err: unknown) => res.writeHead(500).end(String(err)));
    });
    await new Promise<void>((r) => providerServer.listen(pPort, () => r()));
    s = await startTestServer({ port: sPort, publicBaseUrl: base, googleClientId: CLIENT.id, googleClientSecret: CLIENT.secret, googleIssuerUrl: issuer });
  });
  after(async () => {
    await s?.stop();
    await new Promise<void>((r) => providerServer?.close(() => r()));
  });

  /** Starts the flow in `b` and follows the provider's redirects back to the callback; returns the callback's answer. */
  async function flow(b: PageClient, tamper?: (callbackUrl: URL) => void) {
    let r = await b.get('/login/google');
    expect(r.status).to.equal(302);
    let url = new URL(r.location!);
    expect(url.origin).to.equal(issuer);
    expect(url.searchParams.get('code_challenge_method')).to.equal('S256');
    for (const p of ['state', 'nonce', 'code_challenge']) expect(url.searchParams.get(p)).to.have.length.greaterThan(20);
    for (let hops = 0; hops < 10 && url.origin === issuer; hops++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...providerCookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const c of res.headers.getSetCookie()) {
        const [name, value] = c.split(';')[0]!.split('=') as [string, string];
        if (value === '') providerCookies.delete(name);
        else providerCookies.set(name, value);
      }
      expect(res.status, await res.clone().text()).to.be.oneOf([302, 303]);
      url = new URL(res.headers.get('location')!, url);
    }
    expect(url.pathname).to.equal('/login/google/callback');
    tamper?.(url);
    r = await b.get(url.pathname + url.search);
    return r;
  }
  /** The provider's cookies of this browser (one value per name: paths are not told apart). */
  let providerCookies = new Map<string, string>();
  beforeEach(() => {
    providerCookies = new Map();
  });

  it('/v1/status reports oauth.google and /login offers the button', async () => {
    const status = (await (await fetch(`${s.url}/v1/status`)).json()) as { oauth: { google: boolean } };
    expect(status.oauth.google).to.equal(true);
    expect((await new PageClient(s.url, freshIp()).get('/login')).text).to.include('Sign in with Google');
  });

  it("signs in to the account whose e-mail the provider verified", async () => {
    const a = await s.deps.accounts.createAccount('starter', 'Owner@Example.com');
    user = { sub: 'u1', email: 'owner@example.com', email_verified: true };
    const b = new PageClient(s.url, freshIp());
    const r = await flow(b);
    expect(r.status, r.text.slice(0, 400)).to.equal(200);
    expect(r.text).to.include('url=/dashboard');
    expect(r.headers.getSetCookie().find((c) => c.startsWith('chartshot_dashboard='))).to.match(/HttpOnly; SameSite=Strict/);
    const home = await b.get('/dashboard');
    expect(home.status).to.equal(200);
    expect(home.text).to.include(a.account_id);
  });

  it('refuses an unverified e-mail address, and an address no account has', async () => {
    await s.deps.accounts.createAccount('starter', 'unverified@example.com');
    user = { sub: 'u2', email: 'unverified@example.com', email_verified: false };
    let r = await flow(new PageClient(s.url, freshIp()));
    expect(r.status).to.equal(401);
    expect(r.text).to.include('no verified e-mail');
    user = { sub: 'u3', email: 'nobody@example.com', email_verified: true };
    r = await flow(new PageClient(s.url, freshIp()));
    expect(r.status).to.equal(401);
    expect(r.text).to.include('no account uses');
  });

  it('refuses a callback whose state was changed, or that arrives in another browser (no flow cookie)', async () => {
    await s.deps.accounts.createAccount('starter', 'state@example.com');
    user = { sub: 'u4', email: 'state@example.com', email_verified: true };
    let r = await flow(new PageClient(s.url, freshIp()), (u) => u.searchParams.set('state', 'x'.repeat(43)));
    expect(r.status).to.equal(401);
    expect(r.text).to.include('state does not match');
    expect(r.headers.getSetCookie().some((c) => c.startsWith('chartshot_dashboard=') && !c.startsWith('chartshot_dashboard=;'))).to.equal(false);
    const b = new PageClient(s.url, freshIp());
    let callback: URL | undefined;
    await flow(b, (u) => {
      callback = u;
      b.jar.delete('chartshot_oidc');
    });
    r = await new PageClient(s.url, freshIp()).get(callback!.pathname + callback!.search);
    expect(r.status).to.equal(401);
  });

  it('a callback cannot be replayed: the flow cookie is used up', async () => {
    await s.deps.accounts.createAccount('starter', 'replay@example.com');
    user = { sub: 'u5', email: 'replay@example.com', email_verified: true };
    const b = new PageClient(s.url, freshIp());
    let callback: URL | undefined;
    const sealed: string[] = [];
    const r = await flow(b, (u) => {
      callback = u;
      sealed.push(b.jar.get('chartshot_oidc')!);
    });
    expect(r.status).to.equal(200);
    // the same callback again, even with the old flow cookie put back: the code is spent at the provider
    const again = new PageClient(s.url, freshIp());
    again.jar.set('chartshot_oidc', sealed[0]!);
    const r2 = await again.get(callback!.pathname + callback!.search);
    expect(r2.status).to.equal(401);
    expect(r2.text).to.include('token exchange failed');
  });

  it('signs in from Chromium: the Strict session cookie is sent once the continue page leads to the dashboard', async function () {
    const a = await s.deps.accounts.createAccount('growth', 'browser@example.com');
    user = { sub: 'u6', email: 'browser@example.com', email_verified: true };
    const profile = mkdtempSync(join(tmpdir(), 'chartshot-oidc-profile-'));
    const browser = await puppeteer.launch({
      executablePath: s.config.chromiumPath, headless: true, userDataDir: profile,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-dev-shm-usage'],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${s.url}/login`, { waitUntil: 'load' });
      await page.click('a.google');
      await waitFor('the browser on /dashboard', () => new URL(page.url()).pathname === '/dashboard', { ms: 10_000, stepMs: 100, state: () => page.url() });
      expect(new URL(page.url()).pathname).to.equal('/dashboard');
      await page.waitForSelector('main h1');
      expect(await page.$eval('main', (e) => (e as HTMLElement).innerText)).to.include(a.account_id);
      const cookie = (await page.cookies()).find((c) => c.name === 'chartshot_dashboard');
      expect(cookie).to.include({ httpOnly: true, sameSite: 'Strict' });
    } finally {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });

  it("the callback's code and state, and a form's CSRF token, are not written to the access log", () => {
    expect(redactUrl('/login/google/callback?code=abc123&state=xyz&iss=http%3A%2F%2F127.0.0.1')).to.equal('/login/google/callback?code=[redacted]&state=[redacted]&iss=http%3A%2F%2F127.0.0.1');
    expect(redactUrl('/logout?_csrf=tok3n&x=1')).to.equal('/logout?_csrf=[redacted]&x=1');
  });

  it("an address typed in another account's settings neither blocks the owner's Google sign-in nor opens that account to it", async () => {
    const victim = await s.deps.accounts.createAccount('starter', 'victim@example.com');
    const mallory = await s.account('starter');
    const mb = new PageClient(s.url, freshIp());
    await mb.signIn(mallory.session_token);
    expect((await mb.submit('/dashboard/settings', '/dashboard/settings/email', { email: 'Victim@Example.com' })).status).to.equal(303);
    user = { sub: 'u7', email: 'victim@example.com', email_verified: true };
    const vb = new PageClient(s.url, freshIp());
    const r = await flow(vb);
    expect(r.status, r.text.slice(0, 400)).to.equal(200);
    const home = await vb.get('/dashboard');
    expect(home.text).to.include(victim.account_id).and.not.include(mallory.account_id);
    // an address no account was created with, set by Mallory: its Google owner is not signed in to her account
    expect((await mb.submit('/dashboard/settings', '/dashboard/settings/email', { email: 'newcomer@example.com' })).status).to.equal(303);
    user = { sub: 'u8', email: 'newcomer@example.com', email_verified: true };
    const nb = new PageClient(s.url, freshIp());
    const n = await flow(nb);
    expect(n.status).to.equal(401);
    expect(nb.jar.has('chartshot_dashboard')).to.equal(false);
  });

  describe('id_token checks', () => {
    const g = () => new GoogleSignIn({ clientId: CLIENT.id, clientSecret: CLIENT.secret, issuer, redirectUri: 'http://x/cb' }, systemClock, Buffer.alloc(32, 1));
    const now = () => Math.floor(Date.now() / 1000);
    const good = () => ({ iss: issuer, aud: CLIENT.id, sub: 'u', exp: now() + 600, iat: now(), nonce: 'n', email: 'a@example.com', email_verified: true });

    it("accepts the provider's signature with its claims", async () => {
      expect(await g().verifyIdToken(jwt(good()), issuer)).to.include({ email: 'a@example.com' });
    });

    it('refuses another key, alg none or HS256, an algorithm its key does not have, another issuer or audience, an expired token', async () => {
      const forger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const cases: [string, string][] = [
        [jwt(good(), { alg: 'RS256', kid: KID }, forger), 'signature is invalid'],
        [jwt(good(), { alg: 'none', kid: KID }), 'unsupported id_token algorithm'],
        [jwt(good(), { alg: 'HS256', kid: KID }), 'unsupported id_token algorithm'],
        [jwt(good(), { alg: 'RS256', kid: 'unknown' }), 'unknown key'],
        // an RSA signature under an ES256 header: the algorithm must fit the key (and the key's own alg)
        [jwt(good(), { alg: 'ES256', kid: KID }), 'does not match its key'],
        [jwt({ ...good(), iss: 'https://evil.example' }), 'issuer'],
        [jwt({ ...good(), aud: 'another-client' }), 'another client'],
        [jwt({ ...good(), aud: [CLIENT.id, 'x'], azp: 'x' }), 'another client'],
        [jwt({ ...good(), exp: now() - 3600 }), 'expired'],
        ['not.a.jwt', 'malformed'],
      ];
      for (const [token, why] of cases) {
        let msg = '';
        await g().verifyIdToken(token, issuer).catch((e: Error) => (msg = e.message));
        expect(msg, why).to.include(why);
      }
    });
  });
});

describe('Google sign-in with the provider unreachable', function () {
  this.timeout(60000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ googleClientId: 'x', googleClientSecret: 'y', googleIssuerUrl: `http://127.0.0.1:${await freePort()}` });
  });
  after(async () => {
    await s?.stop();
  });

  it('answers with a page saying so (503), not an internal error', async () => {
    const r = await new PageClient(s.url, freshIp()).get('/login/google');
    expect(r.status).to.equal(503);
    expect(r.headers.get('content-type')).to.match(/^text\/html/);
    expect(r.text).to.include('Google sign-in is unreachable just now');
  });
});
