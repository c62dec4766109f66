// A form-posting, cookie-keeping HTTP client for the dashboard pages (no redirects followed),
// and signing in with a session token.
import { expect } from 'chai';

export interface PageAnswer {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class PageClient {
  readonly jar = new Map<string, string>();

  constructor(
    readonly base: string,
    /** Sent as X-Forwarded-For (the server trusts the proxy in these tests): one client address per client. */
    readonly ip: string,
    readonly extraHeaders: Record<string, string> = {},
  ) {}

  private cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/Max-Age=0/i.test(c) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async get(path: string): Promise<PageAnswer> {
    const res = await fetch(this.base + path, { redirect: 'manual', headers: { cookie: this.cookieHeader(), 'x-forwarded-for': this.ip, ...this.extraHeaders } });
    this.keep(res);
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }

  async post(path: string, fields: Record<string, string>): Promise<PageAnswer> {
    const res = await fetch(this.base + path, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': this.ip, ...this.extraHeaders },
      body: new URLSearchParams(fields).toString(),
    });
    this.keep(res);
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }

  /** GETs the page and posts one of its forms with the page's CSRF token. */
  async submit(pagePath: string, action: string, fields: Record<string, string> = {}): Promise<PageAnswer> {
    const page = await this.get(pagePath);
    expect(page.status, `${pagePath}: ${page.text.slice(0, 200)}`).to.equal(200);
    return this.post(action, { _csrf: csrfOf(page.text), ...fields });
  }

  async signIn(sessionToken: string): Promise<PageAnswer> {
    const r = await this.submit('/login', '/login', { token: sessionToken });
    expect(r.status, r.text.slice(0, 300)).to.equal(303);
    expect(r.location).to.equal('/dashboard');
    return r;
  }
}

export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  expect(m, 'a form with _csrf').to.not.equal(null);
  return m![1]!;
}

let next = 1;
/** A fresh documentation-range address per client, so per-address limits do not mix. */
export const freshIp = (): string => `198.51.100.${next++ % 250}`;
