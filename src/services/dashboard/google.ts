// "Sign in with Google": OpenID Connect authorization code flow with PKCE, state and nonce; the
// id_token's signature is checked against the issuer's JWKS and its claims against this client.
// The flow's secrets travel in a short-lived cookie sealed with an HMAC of the master key.
import { createHash, createHmac, createPublicKey, timingSafeEqual, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { AppError, invalidInput, invalidSession, serviceUnavailable } from '../../errors.js';
import { randomToken } from './sessions.js';

export interface GoogleOptions {
  clientId: string;
  clientSecret: string;
  /** The OpenID issuer (https://accounts.google.com). */
  issuer: string;
  /** {base_url}/login/google/callback, registered with the provider. */
  redirectUri: string;
}

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

interface Sealed {
  state: string;
  nonce: string;
  verifier: string;
  exp: number;
}

/** The flow must be finished within this time (the cookie's life). */
export const FLOW_MS = 10 * 60_000;
const SKEW_S = 120;
const TIMEOUT_MS = 10_000;
const ALGS: Record<string, { hash: string; ec: boolean }> = { RS256: { hash: 'sha256', ec: false }, ES256: { hash: 'sha256', ec: true } };

interface SigningKey {
  key: KeyObject;
  /** The JWK's own alg, when it names one. */
  alg: string | undefined;
}

/** RS256 takes an RSA key, ES256 an EC P-256 one, and a key naming its alg only that alg: no algorithm confusion. */
function keyFits(k: SigningKey, alg: string): boolean {
  if (k.alg !== undefined && k.alg !== alg) return false;
  if (alg === 'RS256') return k.key.asymmetricKeyType === 'rsa';
  if (alg === 'ES256') return k.key.asymmetricKeyType === 'ec' && k.key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  return false;
}

export class GoogleSignIn {
  private discovery: Promise<Discovery> | null = null;
  private keys: { at: number; byKid: Map<string, SigningKey> } | null = null;
  private readonly sealKey: Buffer;

  constructor(
    private readonly o: GoogleOptions,
    private readonly clock: Clock,
    masterKey: Buffer,
  ) {
    this.sealKey = createHmac('sha256', masterKey).update('dashboard-oidc-cookie').digest();
  }

  /** Where to send the browser, and the sealed cookie that must come back with it. */
  async start(): Promise<{ url: string; cookie: string }> {
    const d = await reachable(this.meta());
    const s: Sealed = { state: randomToken(), nonce: randomToken(), verifier: randomToken(48), exp: this.clock.now() + FLOW_MS };
    const u = new URL(d.authorization_endpoint);
    u.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.o.clientId,
      redirect_uri: this.o.redirectUri,
      scope: 'openid email',
      state: s.state,
      nonce: s.nonce,
      code_challenge: createHash('sha256').update(s.verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    return { url: u.toString(), cookie: this.seal(s) };
  }

  /** The callback's query and the sealed cookie -> the verified e-mail address. */
  async finish(query: { code?: unknown; state?: unknown; error?: unknown }, cookie: string | undefined): Promise<string> {
    if (typeof query.error === 'string') throw invalidSession(`Google refused the sign-in (${query.error.slice(0, 60)})`);
    const s = cookie ? this.unseal(cookie) : null;
    if (!s || s.exp <= this.clock.now()) throw invalidSession('the sign-in took too long or was started in another browser; start again');
    if (typeof query.state !== 'string' || !equal(query.state, s.state)) throw invalidSession('the sign-in state does not match; start again');
    if (typeof query.code !== 'string' || query.code.length === 0 || query.code.length > 2048) throw invalidInput('no authorization code');
    const d = await reachable(this.meta());
    const res = await reachable(fetch(d.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: query.code,
        redirect_uri: this.o.redirectUri,
        client_id: this.o.clientId,
        client_secret: this.o.clientSecret,
        code_verifier: s.verifier,
      }),
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }));
    const body = (await res.json().catch(() => null)) as { id_token?: unknown; error?: unknown } | null;
    if (!res.ok || !body || typeof body.id_token !== 'string') throw invalidSession(`the token exchange failed (${res.status}${typeof body?.error === 'string' ? ` ${body.error.slice(0, 60)}` : ''})`);
    const claims = await reachable(this.verifyIdToken(body.id_token, d.issuer));
    if (claims.nonce !== s.nonce) throw invalidSession('the id_token nonce does not match');
    if (claims.email_verified !== true && claims.email_verified !== 'true') throw invalidSession('the Google account has no verified e-mail address');
    if (typeof claims.email !== 'string' || claims.email.length > 254) throw invalidSession('the id_token carries no e-mail address');
    return claims.email;
  }

  /** Signature (JWKS, RS256/ES256 only), issuer, audience, authorized party and lifetime. */
  async verifyIdToken(jwt: string, issuer: string): Promise<Record<string, unknown>> {
    const parts = jwt.split('.');
    if (parts.length !== 3 || jwt.length > 16_384) throw invalidSession('malformed id_token');
    const header = decodeJson(parts[0]!);
    const claims = decodeJson(parts[1]!);
    const alg = typeof header.alg === 'string' ? ALGS[header.alg] : undefined;
    if (!alg) throw invalidSession('unsupported id_token algorithm');
    const signer = await this.key(typeof header.kid === 'string' ? header.kid : '');
    if (!keyFits(signer, header.alg as string)) throw invalidSession('the id_token algorithm does not match its key');
    const key = signer.key;
    const ok = verify(alg.hash, Buffer.from(`${parts[0]}.${parts[1]}`), alg.ec ? { key, dsaEncoding: 'ieee-p1363' } : key, Buffer.from(parts[2]!, 'base64url'));
    if (!ok) throw invalidSession('the id_token signature is invalid');
    const now = Math.floor(this.clock.now() / 1000);
    if (claims.iss !== issuer) throw invalidSession('the id_token issuer is not the configured one');
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.includes(this.o.clientId)) throw invalidSession('the id_token is for another client');
    if (aud.length > 1 && claims.azp !== this.o.clientId) throw invalidSession('the id_token is for another client');
    if (typeof claims.exp !== 'number' || claims.exp + SKEW_S < now) throw invalidSession('the id_token has expired');
    if (typeof claims.iat === 'number' && claims.iat - SKEW_S > now) throw invalidSession('the id_token is issued in the future');
    return claims;
  }

  private meta(): Promise<Discovery> {
    this.discovery ??= getJson(`${this.o.issuer}/.well-known/openid-configuration`).then((d) => {
      for (const f of ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
        if (typeof d[f] !== 'string') throw new Error(`OpenID discovery of ${this.o.issuer} lacks ${f}`);
      }
      if (d.issuer !== this.o.issuer) throw new Error(`OpenID discovery names issuer ${String(d.issuer)}, not ${this.o.issuer}`);
      return d as unknown as Discovery;
    });
    // a failed discovery is tried again by the next sign-in
    this.discovery.catch(() => {
      this.discovery = null;
    });
    return this.discovery;
  }

  /** The signing key by kid; the key set is fetched again (at most once a minute) for an unknown kid: keys rotate. */
  private async key(kid: string): Promise<SigningKey> {
    const now = this.clock.now();
    let found = this.keys?.byKid.get(kid);
    if (!found && (!this.keys || now - this.keys.at > 60_000)) {
      const d = await this.meta();
      const set = await getJson(d.jwks_uri);
      const byKid = new Map<string, SigningKey>();
      for (const jwk of Array.isArray(set.keys) ? (set.keys as JsonWebKey[]) : []) {
        if (jwk.use !== undefined && jwk.use !== 'sig') continue;
        try {
          const alg = typeof (jwk as { alg?: unknown }).alg === 'string' ? ((jwk as { alg: string }).alg) : undefined;
          byKid.set(typeof jwk.kid === 'string' ? jwk.kid : '', { key: createPublicKey({ key: jwk, format: 'jwk' }), alg });
        } catch {
          /* a key type node cannot read is not one we accept */
        }
      }
      this.keys = { at: now, byKid };
      found = byKid.get(kid);
    }
    if (!found) throw invalidSession('the id_token is signed by an unknown key');
    return found;
  }

  private seal(s: Sealed): string {
    const payload = Buffer.from(JSON.stringify(s)).toString('base64url');
    return `${payload}.${createHmac('sha256', this.sealKey).update(payload).digest('base64url')}`;
  }

  private unseal(v: string): Sealed | null {
    const [payload, mac] = v.split('.');
    if (!payload || !mac || !equal(mac, createHmac('sha256', this.sealKey).update(payload).digest('base64url'))) return null;
    try {
      const s = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Sealed;
      return typeof s.state === 'string' && typeof s.nonce === 'string' && typeof s.verifier === 'string' && typeof s.exp === 'number' ? s : null;
    } catch {
      return null;
    }
  }
}

/** The provider unreachable or answering nonsense is a 503 the page explains, not a 500. */
async function reachable<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw serviceUnavailable(30, `Google sign-in is unreachable just now (${(err as Error).message.slice(0, 120)}); try again, or sign in with a session token`);
  }
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function decodeJson(part: string): Record<string, unknown> {
  try {
    const v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* falls through */
  }
  throw invalidSession('malformed id_token');
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  const v = (await res.json()) as unknown;
  if (typeof v !== 'object' || v === null) throw new Error(`GET ${url}: not a JSON object`);
  return v as Record<string, unknown>;
}
