// Property-based fuzzing of every endpoint against the real server (real
// Chromium, real SQLite). Thousands of random and mutated requests; for every one: a client
// mistake is a 4xx, never a 5xx (no 500 render_failed and no 503 either: each is counted,
// reported, and must be zero); every request generated is sent (counted, must be all); every error body is the error object {error, detail?} with a documented code
// at its documented status (plus 503 service_unavailable); every request completes within
// REQUEST_BOUND_MS; the server answers /v1/status after each property; nothing reaches
// Object.prototype of the (in-process) server.
//
// Reproducible by default (fixed seed). FUZZ_SEED=<n> changes the seed, FUZZ_RUNS=<n> sets the
// number of runs of every property (e.g. FUZZ_RUNS=2000 FUZZ_SEED=$RANDOM for a long soak).
// A failure prints the seed and the shrunk request: replay it with FUZZ_SEED.
import { expect } from 'chai';
import fc from 'fast-check';
import { Agent, request as httpRequest } from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { apiKey } from '../helpers/client.js';
import { ERROR_STATUS } from '../../src/errorCodes.js';

const SEED = Number(process.env.FUZZ_SEED ?? 7_0307);
const RUNS_OVERRIDE = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : null;
const REQUEST_BOUND_MS = 15_000;

/** The documented error codes (and 503 for overload): the only codes an error body may carry, at these statuses. */
const STATUS_OF: Readonly<Record<string, number>> = ERROR_STATUS;

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const runs = (n: number) => RUNS_OVERRIDE ?? n;
/** fast-check's report, with the counterexample cut short (a 5000-deep body would fill the screen). */
function shortReport<T>(details: fc.RunDetails<T>): void {
  if (!details.failed) return;
  const text = fc.defaultReportMessage(details) ?? 'property failed';
  throw new Error(text.length > 4000 ? `${text.slice(0, 2000)}\n[... ${text.length - 4000} characters ...]\n${text.slice(-2000)}` : text);
}
const params = (n: number) => ({ numRuns: runs(n), seed: SEED, endOnFailure: true, reporter: shortReport });

// ---- generators ---------------------------------------------------------------------------

/** Characters http.request accepts in a path: anything else is sent percent-encoded (as UTF-8, lone surrogates as their raw 3-byte form). */
function pathSafe(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x21 && c <= 0x7e && ch !== '#') out += ch;
    else if (c >= 0xd800 && c <= 0xdfff) out += `%${(0xe0 | (c >> 12)).toString(16)}%${(0x80 | ((c >> 6) & 0x3f)).toString(16)}%${(0x80 | (c & 0x3f)).toString(16)}`;
    else out += [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
  return out;
}

/** Header values as Node lets a client send them (no control characters). */
const headerSafe = (s: string) => s.replace(/[^\t\x20-\x7e]/g, '?');

const BAD_PCT = fc.constantFrom('%zz', '%', '%2', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '%00', '%FF%FE', '%%', '%u0041', '%F0%9F%98', '%0A%0D', '%25%32%35', '%C3%28', '%80');

const UNICODE = fc.constantFrom('\u0000', '\uD800', '\uDFFF', '\uFFFF', '\u202E', '🎉', '漢字', 'Ω', '\u0085', '\u2028', 'e\u0301', '\uFEFF');

/** Strings a client might get wrong: unicode, NaN-like, huge, numbers as text, code-like, lone surrogates. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: fc.constantFrom('\uD800', '\uDC00', 'a', ',', '%', '"', '\\', '\u0000'), maxLength: 20 }),
  UNICODE,
  fc.constantFrom('NaN', 'Infinity', '-Infinity', 'undefined', 'null', 'true', '1e309', '-0', '0x10', '1_000', ' 12 ', '١٢', '12px', '', ' ', ',,,', '1,2,,3'),
  fc.constantFrom('function(){while(true){}}', '() => 1', '<script>alert(1)</script>', 'javascript:alert(1)', 'eval("1")', '__proto__', 'constructor', 'toString'),
  fc.integer({ min: 1000, max: 120_000 }).map((n) => 'x'.repeat(n)),
  BAD_PCT,
);

const nastyNumber = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, -1, 1.5, 2001, 4001, 8001, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 1e21, 1e308, -1e308, Number.MIN_VALUE),
);

/** Any JSON value, with the keys that have hurt JavaScript servers before. */
const nastyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    nastyNumber,
    nastyString,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'chart', 'type', 'data')), tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** Deeply nested garbage: [[[[...]]]] and {"a":{"a":...}} to thousands of levels. */
const deepJson = fc.tuple(fc.integer({ min: 50, max: 5000 }), fc.boolean()).map(([depth, arr]) => (arr ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)));

const CHART_TYPES = ['bar', 'line', 'pie', 'doughnut', 'radar', 'polarArea', 'scatter', 'bubble'] as const;

/** A small valid config (renders quickly at the sizes used here). */
const validConfig = fc.record({
  type: fc.constantFrom(...CHART_TYPES),
  data: fc.record({
    labels: fc.array(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 6 }),
    datasets: fc.array(fc.record({ label: fc.string({ maxLength: 8 }), data: fc.array(fc.integer({ min: -100, max: 100 }), { minLength: 1, maxLength: 6 }) }), { minLength: 1, maxLength: 2 }),
  }),
  options: fc.constant({ animation: false }),
});

/** A small, valid chart request body. */
const validChartBody = fc.record({
  chart: validConfig,
  width: fc.integer({ min: 20, max: 120 }),
  height: fc.integer({ min: 20, max: 90 }),
  format: fc.constantFrom('png', 'svg', undefined),
  backgroundColor: fc.constantFrom('white', '#fff', 'rgba(0,0,0,0.5)', 'transparent', undefined),
});

type Json = Record<string, unknown>;

/** Mutations of a valid object: a field removed, replaced by garbage, or a prototype key added; applied to the top level or to a nested object. */
function mutate(base: fc.Arbitrary<Json>): fc.Arbitrary<string> {
  const mutation = fc.oneof(
    fc.record({ op: fc.constant('remove' as const), at: fc.nat() }),
    fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value: nastyJson }),
    fc.record({ op: fc.constant('add' as const), key: fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('c', 'chart', 'api_key', 'options', 'plugins')), value: nastyJson }),
    fc.record({ op: fc.constant('deep' as const), at: fc.nat(), value: nastyJson }),
    fc.record({ op: fc.constant('proto' as const), key: fc.constantFrom('__proto__', 'constructor', 'prototype'), value: nastyJson }),
  );
  return fc.tuple(base, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([obj, muts]) => {
    const o: Json = structuredClone(obj);
    let protoText = '';
    for (const m of muts) {
      const keys = Object.keys(o);
      const key = keys.length ? keys[('at' in m ? m.at : 0) % keys.length]! : 'x';
      if (m.op === 'remove') delete o[key];
      else if (m.op === 'replace') o[key] = m.value;
      else if (m.op === 'add') o[m.key] = m.value;
      else if (m.op === 'deep') {
        // replace a leaf somewhere inside the first nested object
        let cur: unknown = o;
        for (let i = 0; i < 4 && cur && typeof cur === 'object'; i++) {
          const ks = Object.keys(cur as object);
          if (!ks.length) break;
          const k = ks[m.at % ks.length]!;
          const next = (cur as Json)[k];
          if (!next || typeof next !== 'object') {
            (cur as Json)[k] = m.value;
            break;
          }
          cur = next;
        }
      } else protoText = `${JSON.stringify(m.key)}:${JSON.stringify(m.value) ?? 'null'},`;
    }
    const text = JSON.stringify(o);
    // JSON.parse makes "__proto__" an own key: only raw text can carry it.
    return protoText ? `{${protoText}${text.slice(1)}`.replace(/,}$/, '}') : text;
  });
}

/** Query strings: known and random keys, garbage values, repeated keys, broken percent-encoding. */
function queryString(keys: readonly string[], extra: fc.Arbitrary<[string, string]>[] = []): fc.Arbitrary<string> {
  const value = fc.oneof(nastyString.map((s) => (s.length > 2000 ? s.slice(0, 2000) : s)), nastyNumber.map(String), BAD_PCT);
  const key = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 6 }), BAD_PCT) });
  const encoded = fc.tuple(key, value, fc.nat(3)).map(([k, v, how]) => {
    if (how === 0) return `${pathSafe(k)}=${pathSafe(v)}`; // raw bytes, broken escapes kept
    if (how === 1) return pathSafe(k); // a key without a value
    try {
      return `${encodeURIComponent(k)}=${encodeURIComponent(v)}`;
    } catch {
      return `${pathSafe(k)}=${pathSafe(v)}`; // lone surrogate: encodeURIComponent refuses it
    }
  });
  const pair = extra.length ? fc.oneof(encoded, ...extra.map((e) => e.map(([k, v]) => `${k}=${v}`))) : encoded;
  return fc.array(pair, { maxLength: 8 }).chain((pairs) =>
    // repeat some parameter now and then
    fc.boolean().map((rep) => (rep && pairs.length ? [...pairs, pairs[0]!] : pairs).join('&')),
  );
}

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1', '', 'garbage/;;;', 'APPLICATION/JSON'];

const headerGarbage = fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: 'binary-ascii', maxLength: 60 }), fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer \t x', '*', 'W/""', '"abc", W/"def"', 'live_', 'trial_', 'pk_test_', 'x'.repeat(4000))).map(headerSafe);

// ---- the test -------------------------------------------------------------------------------

describe('fuzzing every endpoint (fast-check, real server)', function () {
  this.timeout(180_000);
  let s: TestServer;
  let agent: Agent;
  let host: string;
  let port: number;
  let entKey: string;
  let trialKey: string;
  let session: string;
  let chartId: string;
  let sent = 0;
  let skipped = 0;
  /** Requests Node's client refused to send, by its error code, with the first example of each. */
  const unsendable = new Map<string, { n: number; example: string }>();
  const renderFailures: string[] = [];
  /** 503 service_unavailable answers (overload): counted and reported like render failures. */
  const unavailable: string[] = [];
  const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort().join(',');

  before(async function () {
    this.timeout(60_000);
    // Own server: per-IP open limit lifted (varied X-Forwarded-For as well), proxy headers trusted.
    s = await startTestServer({ poolSize: 2, trustProxy: true, openRendersPerHour: 1_000_000 });
    const u = new URL(s.url);
    host = u.hostname;
    port = Number(u.port);
    agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const ent = await s.account('enterprise');
    await s.deps.billing.setCustomLimits(ent.account_id, { perMinute: 1_000_000, perHour: 10_000_000, burst: 1_000_000 });
    entKey = ent.api_key;
    session = ent.session_token;
    trialKey = (await s.account('trial')).api_key;
    const created = await send({ method: 'POST', path: '/v1/chart/create', headers: { 'content-type': 'application/json', ...apiKey(entKey) }, body: JSON.stringify({ chart: { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } }, width: 40, height: 30 }) });
    expect(created!.status).to.equal(201);
    chartId = (JSON.parse(created!.body.toString()) as { id: string }).id;
  });

  after(async function () {
    agent?.destroy();
    // eslint-disable-next-line no-console
    console.log(`      fuzz: seed ${SEED}, ${sent} requests sent, ${skipped} not sendable${skipped ? ` (${[...unsendable].map(([code, u]) => `${code} x${u.n}, e.g. ${u.example}`).join('; ')})` : ''}, ${renderFailures.length} render_failed${renderFailures.length ? `: ${renderFailures.slice(0, 3).join(' | ').slice(0, 1500)}` : ''}, ${unavailable.length} service_unavailable${unavailable.length ? `: ${unavailable.slice(0, 3).join(' | ').slice(0, 1500)}` : ''}`);
    await s?.stop();
  });

  /** Sends one request; null when Node's client itself refuses it (invalid header/path characters). */
  function send(r: Req): Promise<Res | null> {
    return new Promise((resolve, reject) => {
      let req;
      try {
        req = httpRequest({ host, port, method: r.method, path: r.path, headers: { ...r.headers, ...(r.body !== undefined ? { 'content-length': String(Buffer.byteLength(r.body)) } : {}) }, agent, signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ERR_INVALID_CHAR' || code === 'ERR_UNESCAPED_CHARACTERS' || code === 'ERR_INVALID_HTTP_TOKEN') {
          skipped++;
          const seen = unsendable.get(code) ?? { n: 0, example: `${r.method} ${r.path.slice(0, 120)} ${JSON.stringify(r.headers).slice(0, 200)}` };
          seen.n++;
          unsendable.set(code, seen);
          return resolve(null);
        }
        return reject(err as Error);
      }
      sent++;
      req.on('error', (err) => reject(new Error(`${r.method} ${r.path.slice(0, 200)}: ${err.message} (no answer within ${REQUEST_BOUND_MS} ms, or the connection broke)`)));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.end(r.body);
    });
  }

  /** The property every response must have. */
  async function check(r: Req): Promise<void> {
    const res = await send(r);
    if (!res) return;
    const what = `${r.method} ${r.path.slice(0, 300)} -> ${res.status} ${res.body.toString('utf8', 0, 300)}`;
    if (r.method === 'HEAD') {
      expect(res.status, what).to.be.within(200, 499); // no body to check
      return;
    }
    if (res.status < 400) {
      expect(res.status, what).to.be.within(200, 399);
      return;
    }
    expect(String(res.headers['content-type']), what).to.match(/^application\/json/);
    const body = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
    expect(body, what).to.be.an('object');
    expect(Object.keys(body).filter((k) => k !== 'error' && k !== 'detail'), what).to.deep.equal([]);
    expect(body.error, what).to.be.a('string');
    if (body.detail !== undefined) expect(body.detail, what).to.be.a('string');
    const code = body.error as string;
    expect(STATUS_OF, `unknown error code: ${what}`).to.have.property(code);
    if (code === 'render_failed') {
      renderFailures.push(`${what} <- ${(r.body ?? '').slice(0, 400)}`);
      return;
    }
    if (code === 'service_unavailable') {
      unavailable.push(`${what} <- ${(r.body ?? '').slice(0, 400)}`);
      return;
    }
    // 405 (a method the path does not take, with Allow) is the one status outside the documented codes.
    if (res.status === 405) expect(code, what).to.equal('invalid_input');
    else expect(res.status, `a client mistake answered ${res.status}: ${what}`).to.equal(STATUS_OF[code]);
    expect(res.status, what).to.not.equal(500);
  }

  async function alive(): Promise<void> {
    const res = await send({ method: 'GET', path: '/v1/status', headers: {} });
    expect(res!.status).to.equal(200);
    expect((JSON.parse(res!.body.toString()) as { status: string }).status).to.be.a('string');
  }

  const json = (key: string | null, extra: Record<string, string> = {}) => ({ 'content-type': 'application/json', ...(key ? apiKey(key) : {}), ...extra });
  const POST_PATHS = ['/v1/chart', '/v1/chart/create', '/v1/zapier/bar-chart', '/v1/zapier/line-chart', '/v1/zapier/pie-chart', '/v1/zapier/multi-series-chart', '/signup/anon'] as const;

  it('POST endpoints: arbitrary JSON, deep nesting, non-JSON and bad Content-Type never give a 500', async () => {
    const body = fc.oneof(
      { weight: 4, arbitrary: nastyJson.map((v) => JSON.stringify(v) ?? 'null') },
      { weight: 1, arbitrary: deepJson },
      { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom('{', '{"a":', '[1,', 'chart=1&width=2', '\u0000', '{"a":1}{"b":2}', 'NaN', '{"width": NaN}', "{'a':1}")) },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POST_PATHS), body, fc.constantFrom(...CONTENT_TYPES), fc.constantFrom<string | null>(entKey, entKey, trialKey, null), async (path, b, type, key) => {
        await check({ method: 'POST', path, headers: { ...(type ? { 'content-type': type } : {}), ...(key ? apiKey(key) : {}) }, body: b });
      }),
      params(500),
    );
    await alive();
  });

  it('chart requests: mutated valid bodies (fields removed, wrong types, huge and negative numbers, unicode, prototype keys)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/v1/chart', '/v1/chart/create'), mutate(validChartBody as fc.Arbitrary<Json>), async (path, b) => {
        await check({ method: 'POST', path, headers: json(entKey), body: b });
      }),
      params(500),
    );
    await alive();
  });

  it('automation endpoints: mutated valid bodies', async () => {
    const common = { title: fc.string({ minLength: 1, maxLength: 20 }), labels: fc.constant('a,b,c'), values: fc.constant('1,2,3'), width: fc.integer({ min: 30, max: 120 }), height: fc.integer({ min: 30, max: 90 }) };
    const bodies = fc.oneof(
      fc.tuple(fc.constant('/v1/zapier/bar-chart'), mutate(fc.record({ ...common, color: fc.constant('#123456'), showLegend: fc.boolean(), showGrid: fc.boolean() }))),
      fc.tuple(fc.constant('/v1/zapier/line-chart'), mutate(fc.record({ ...common, tension: fc.double({ min: 0, max: 1, noNaN: true }), fillArea: fc.boolean(), showPoints: fc.boolean() }))),
      fc.tuple(fc.constant('/v1/zapier/pie-chart'), mutate(fc.record({ ...common, colors: fc.constant('red,#00ff00,rgb(0, 0, 255)'), legendPosition: fc.constantFrom('top', 'left') }))),
      fc.tuple(fc.constant('/v1/zapier/multi-series-chart'), mutate(fc.record({ title: common.title, labels: common.labels, width: common.width, height: common.height, type: fc.constantFrom('bar', 'line'), series: fc.constant([{ name: 'a', values: '1,2,3' }, { name: 'b', values: '3,2,1', color: '#f00' }]) }))),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async ([path, b]) => {
        await check({ method: 'POST', path, headers: json(entKey), body: b });
      }),
      params(350),
    );
    await alive();
  });

  it('GET /v1/chart: random query strings (repeated parameters, %zz, lone surrogates, signed-URL garbage)', async () => {
    const valid = fc.constantFrom<[string, string]>(
      ['chart', encodeURIComponent('{"type":"bar","data":{"labels":["a"],"datasets":[{"data":[1]}]}}')],
      ['width', '60'],
      ['height', '40'],
      ['format', 'svg'],
    );
    const q = queryString(['chart', 'c', 'width', 'height', 'format', 'backgroundColor', 'api_key', 'sig', 'exp', 'key_id'], [valid]);
    await fc.assert(
      fc.asyncProperty(q, fc.constantFrom<'key' | 'query' | 'none' | 'garbage'>('key', 'key', 'query', 'none', 'garbage'), headerGarbage, async (qs, auth, garbage) => {
        const headers: Record<string, string> = auth === 'key' ? apiKey(entKey) : auth === 'garbage' ? apiKey(garbage) : {};
        const query = auth === 'query' ? `${qs}&api_key=${entKey}` : qs;
        await check({ method: 'GET', path: `/v1/chart?${query}`, headers });
      }),
      params(400),
    );
    await alive();
  });

  it('GET /v1/open/chart: random queries from many addresses', async () => {
    const valid = fc.constantFrom<[string, string]>(['type', 'bar'], ['data', '1,2,3'], ['labels', 'a,b'], ['w', '50'], ['h', '40'], ['c', encodeURIComponent('{"type":"line","data":{"datasets":[{"data":[1,2]}]}}')]);
    const q = queryString(['c', 'type', 'data', 'labels', 'w', 'h', 'format', 'bkg'], [valid, valid]);
    const ip = fc.oneof(fc.ipV4(), fc.ipV6(), fc.constant('garbage'), fc.constant(''), fc.constant('1.2.3.4, 5.6.7.8'));
    await fc.assert(
      fc.asyncProperty(q, ip, fc.option(headerGarbage), async (qs, addr, inm) => {
        await check({ method: 'GET', path: `/v1/open/chart?${qs}`, headers: { 'x-forwarded-for': addr, ...(inm !== null ? { 'if-none-match': inm } : {}) } });
      }),
      params(450),
    );
    await alive();
  });

  it('short charts, metrics, download and preview: random ids and paths, If-None-Match garbage', async () => {
    const id = fc.oneof(
      fc.constant(chartId),
      fc.string({ maxLength: 80 }).map(pathSafe),
      fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/),
      BAD_PCT,
      fc.constantFrom('..', '.', '%2e%2e', '..%2f..%2fetc%2fpasswd', chartId + '%00', chartId.toUpperCase(), 'x'.repeat(5000), '__proto__', 'constructor'),
    );
    const route = fc.constantFrom('/v1/chart/{}', '/v1/chart/{}/download', '/v1/chart/{}/preview', '/v1/metrics/{}', '/v1/chart/{}/{}', '/billing/invoices/{}/pdf');
    await fc.assert(
      fc.asyncProperty(route, id, fc.option(headerGarbage), fc.constantFrom<string | null>(entKey, trialKey, null, 'live_garbage'), async (r, i, inm, key) => {
        const headers: Record<string, string> = { ...(inm !== null ? { 'if-none-match': inm } : {}), ...(key ? apiKey(key) : {}), authorization: `Bearer ${session}` };
        await check({ method: 'GET', path: r.replaceAll('{}', i), headers });
      }),
      params(350),
    );
    await alive();
  });

  it('account endpoints and signup: random Authorization headers and queries', async () => {
    const auth = fc.oneof(fc.constant(`Bearer ${session}`), fc.constant(`bearer   ${session}  `), headerGarbage, fc.constant(''), headerGarbage.map((g) => `Bearer ${g}`));
    const path = fc.constantFrom('/usage/analytics', '/billing/info', '/billing/invoices', '/billing/invoices/inv_x/pdf');
    await fc.assert(
      fc.asyncProperty(path, queryString(['days', 'from', 'to']), auth, async (p, qs, a) => {
        await check({ method: 'GET', path: `${p}?${qs}`, headers: a ? { authorization: a } : {} });
      }),
      params(300),
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.ipV4(), fc.ipV6(), headerGarbage), fc.option(nastyJson.map((v) => JSON.stringify(v) ?? '')), async (addr, b) => {
        await check({ method: 'POST', path: '/signup/anon', headers: { 'x-forwarded-for': addr, 'content-type': 'application/json' }, ...(b !== null ? { body: b } : {}) });
      }),
      params(100),
    );
    await alive();
  });

  it('any method on any route, random paths and headers (status, openapi.json, docs, metrics)', async () => {
    const base = fc.constantFrom('/v1/status', '/openapi.json', '/docs', '/metrics', '/playground', '/v1/chart', '/v1/chart/create', '/v1/open/chart', '/v1/zapier/bar-chart', '/signup/anon', '/usage/analytics', '/billing/info', '/', '/v1', '/v2/chart');
    const suffix = fc.oneof(fc.constant(''), fc.constant('/'), fc.string({ maxLength: 20 }).map((x) => '/' + pathSafe(x)), BAD_PCT.map((x) => '/' + x), fc.constant('//'), fc.constant('/..'));
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND');
    const headers = fc.dictionary(fc.constantFrom('x-api-key', 'authorization', 'if-none-match', 'content-type', 'accept', 'accept-encoding', 'x-forwarded-for', 'range', 'cookie', 'origin'), headerGarbage, { maxKeys: 4 });
    await fc.assert(
      fc.asyncProperty(method, base, suffix, queryString(['c', 'api_key', 'width']), headers, fc.option(fc.string({ maxLength: 100 })), async (m, b, sfx, qs, h, body) => {
        const hasBody = body !== null && m !== 'GET' && m !== 'HEAD';
        await check({ method: m, path: `${b}${sfx}${qs ? '?' + qs : ''}`, headers: h, ...(hasBody ? { body } : {}) });
      }),
      params(350),
    );
    await alive();
  });

  it('found by fuzzing: automation text that reads like code is drawn as text, never run', async () => {
    // A title of "function(){while(true){}}" used to be revived as a function and hang the page
    // until the render timeout (500 render_failed).
    const res = await send({ method: 'POST', path: '/v1/zapier/bar-chart', headers: json(entKey), body: JSON.stringify({ title: 'function(){while(true){}}', labels: 'a,b,c', values: '1,2,3', width: 90, height: 80 }) });
    expect(res!.status, res!.body.toString()).to.equal(201);
    const deep = await send({ method: 'POST', path: '/v1/zapier/line-chart', headers: json(entKey), body: '{"a":'.repeat(5000) + '1' + '}'.repeat(5000) });
    expect(deep!.status).to.equal(400);
    expect(JSON.parse(deep!.body.toString())).to.deep.include({ error: 'invalid_input' });
  });

  it('afterwards: the server still renders, and nothing reached Object.prototype', async () => {
    await alive();
    const res = await send({ method: 'POST', path: '/v1/chart', headers: json(entKey), body: JSON.stringify({ chart: { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } }, width: 50, height: 40 }) });
    expect(res!.status).to.equal(200);
    expect(Object.getOwnPropertyNames(Object.prototype).sort().join(',')).to.equal(protoBefore);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    // "never" means zero: no render_failed and no 503 either (issue 31; seed 70307 gave none of either)
    expect(renderFailures, `render_failed answers: ${renderFailures.slice(0, 3).join(' | ')}`).to.deep.equal([]);
    expect(unavailable, `service_unavailable answers: ${unavailable.slice(0, 3).join(' | ')}`).to.deep.equal([]);
  });

  it('every generated request was sent: none refused by Node\'s own client', () => {
    // The generators escape paths (pathSafe) and headers (headerSafe) as a client must, so a request
    // Node refuses to send means a generator went wrong and its cases went untested: counted, bound at zero.
    expect(sent, 'requests sent').to.be.greaterThan(1000);
    expect(skipped, `not sendable: ${[...unsendable].map(([code, u]) => `${code} x${u.n}, e.g. ${u.example}`).join('; ')}`).to.equal(0);
  });
});
