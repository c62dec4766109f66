// An HTTP client for tests, bound to a base URL and an API key, with the reads every test
// repeats: the body as bytes, the {error, detail} object of a failing call, a checked PNG.
import { expect } from 'chai';
import type { PNG } from 'pngjs';
import { decodePng, isPng } from './images.js';

export type HeaderMap = Record<string, string>;

/** What a render call answers: status, headers and the whole body. */
export interface Rendered {
  status: number;
  headers: Response['headers'];
  body: Buffer;
}

/** The error object of a failing call, with its status. */
export interface ApiError {
  status: number;
  error: string;
  detail?: string;
}

export async function post(base: string, path: string, body: unknown, headers: HeaderMap = {}): Promise<Response> {
  return fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The header that carries an API key. */
export function apiKey(key: string): HeaderMap {
  return { 'x-api-key': key };
}

/** The whole body of a response as bytes. */
export async function bytes(res: Response | Promise<Response>): Promise<Buffer> {
  return Buffer.from(await (await res).arrayBuffer());
}

/** The {error, detail} object of a failing call and its status; the answer must be JSON. */
export async function errorOf(res: Response | Promise<Response>): Promise<ApiError> {
  const r = await res;
  expect(r.headers.get('content-type')).to.match(/application\/json/);
  const body = (await r.json()) as { error: string; detail?: string };
  return { status: r.status, ...body };
}

/** Decodes a PNG after checking its signature. */
export function png(buf: Buffer): PNG {
  expect(isPng(buf), 'PNG signature').to.equal(true);
  return decodePng(buf);
}

export class Client {
  constructor(
    readonly url: string,
    readonly key?: string,
  ) {}

  /** `extra` headers plus this client's x-api-key (a key in `extra` wins). */
  auth(extra: HeaderMap = {}): HeaderMap {
    return this.key === undefined ? { ...extra } : { ...apiKey(this.key), ...extra };
  }

  /** The same server, another key (none: an anonymous client). */
  as(key?: string): Client {
    return new Client(this.url, key);
  }

  get(path: string, headers: HeaderMap = {}): Promise<Response> {
    return fetch(this.url + path, { headers: this.auth(headers) });
  }

  post(path: string, body: unknown, headers: HeaderMap = {}): Promise<Response> {
    return post(this.url, path, body, this.auth(headers));
  }

  /** POST /v1/chart (or another render path), read whole. */
  async render(body: unknown, opts: { path?: string; headers?: HeaderMap } = {}): Promise<Rendered> {
    const res = await this.post(opts.path ?? '/v1/chart', body, opts.headers);
    return { status: res.status, headers: res.headers, body: await bytes(res) };
  }

  /** POST /v1/chart (or `path`) that must succeed with a PNG: the decoded image. */
  async png(body: unknown, opts: { path?: string; headers?: HeaderMap } = {}): Promise<PNG> {
    const res = await this.render(body, opts);
    expect(res.status, res.body.toString('utf8', 0, 300)).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    return png(res.body);
  }

  /** The error object of a call that must fail: a POST of `body` to `path`. */
  error(path: string, body: unknown, headers: HeaderMap = {}): Promise<ApiError> {
    return errorOf(this.post(path, body, headers));
  }
}
