// The render call's shape over --remote-debugging-pipe=cbor (a minimal CBOR transport, no
// puppeteer) against the same over the JSON pipe, on about:blank in a Chromium of its own: CPU
// per call of this Node process and of Chromium's browser and renderer processes, BYTES
// characters in and out (default 40000, about a corpus PNG in base64). Whether a CBOR transport
// would pay before anyone builds one. Uses --no-sandbox when run as root: a measurement only.
//
//   [BYTES=100000] node --import tsx bench/cdp-cbor.ts [calls]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const N = Number(process.argv[2] ?? 1000);
const BYTES = Number(process.env.BYTES ?? 40000);

// ---- CBOR as Chromium's crdtp speaks it: an envelope (tag 24, a byte string with a 32-bit
// length) around indefinite-length maps and arrays; strings as UTF-8 text or UTF-16LE bytes.
function head(major: number, n: number, out: number[]): void {
  if (n < 24) out.push((major << 5) | n);
  else if (n < 256) out.push((major << 5) | 24, n);
  else if (n < 65536) out.push((major << 5) | 25, n >> 8, n & 255);
  else out.push((major << 5) | 26, (n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255);
}
function enc(v: unknown, parts: Buffer[], cur: number[]): number[] {
  if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    head(3, b.length, cur);
    parts.push(Buffer.from(cur), b);
    return [];
  }
  if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= 0 && v < 2 ** 31) head(0, v, cur);
    else if (Number.isInteger(v) && v < 0 && v > -(2 ** 31)) head(1, -1 - v, cur);
    else { const b = Buffer.alloc(9); b[0] = 0xfb; b.writeDoubleBE(v, 1); cur.push(...b); }
    return cur;
  }
  if (typeof v === 'boolean') { cur.push(v ? 0xf5 : 0xf4); return cur; }
  if (v === null || v === undefined) { cur.push(0xf6); return cur; }
  if (Array.isArray(v)) {
    cur.push(0x9f);
    for (const x of v) cur = enc(x, parts, cur);
    cur.push(0xff);
    return cur;
  }
  // every map sits in an envelope of its own (crdtp's encoder does the same)
  const inner: Buffer[] = [];
  let icur: number[] = [0xbf];
  for (const [k, x] of Object.entries(v as object)) {
    if (x === undefined) continue;
    icur = enc(k, inner, icur);
    icur = enc(x, inner, icur);
  }
  icur.push(0xff);
  inner.push(Buffer.from(icur));
  const body = Buffer.concat(inner);
  cur.push(0xd8, 0x18, 0x5a, (body.length >>> 24) & 255, (body.length >> 16) & 255, (body.length >> 8) & 255, body.length & 255);
  parts.push(Buffer.from(cur), body);
  return [];
}
function encodeMessage(msg: object): Buffer {
  const parts: Buffer[] = [];
  const rest = enc(msg, parts, []);
  parts.push(Buffer.from(rest));
  return Buffer.concat(parts);
}
function decode(b: Buffer, at: { i: number }): unknown {
  const first = b[at.i++]!;
  const major = first >> 5;
  const info = first & 31;
  if (first === 0xd8) { // tag: 24 envelope, 22 binary
    const tag = b[at.i++]!;
    if (tag === 24) { at.i += 5; return decode(b, at); }
    return decode(b, at);
  }
  if (first === 0xbf) { const o: Record<string, unknown> = {}; while (b[at.i] !== 0xff) { const k = decode(b, at) as string; o[k] = decode(b, at); } at.i++; return o; }
  if (first === 0x9f) { const a: unknown[] = []; while (b[at.i] !== 0xff) a.push(decode(b, at)); at.i++; return a; }
  if (first === 0xf5) return true;
  if (first === 0xf4) return false;
  if (first === 0xf6) return null;
  if (first === 0xfb) { const d = b.readDoubleBE(at.i); at.i += 8; return d; }
  let n = info;
  if (info === 24) n = b[at.i++]!;
  else if (info === 25) { n = b.readUInt16BE(at.i); at.i += 2; }
  else if (info === 26) { n = b.readUInt32BE(at.i); at.i += 4; }
  if (major === 0) return n;
  if (major === 1) return -1 - n;
  if (major === 3) { const s = b.toString('utf8', at.i, at.i + n); at.i += n; return s; }
  if (major === 2) { const s = b.toString('utf16le', at.i, at.i + n); at.i += n; return s; }
  throw new Error(`CBOR byte ${first} not handled`);
}

async function run(mode: 'json' | 'cbor'): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'pp-cbor-'));
  const proc = spawn('/usr/bin/chromium', ['--headless=new', mode === 'cbor' ? '--remote-debugging-pipe=cbor' : '--remote-debugging-pipe', '--disable-gpu', '--no-first-run', `--user-data-dir=${profile}`, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), 'about:blank'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
  const out = proc.stdio[3] as NodeJS.WritableStream;
  const inp = proc.stdio[4] as NodeJS.ReadableStream;
  let id = 0;
  const pending = new Map<number, (v: any) => void>();
  let buf: Buffer = Buffer.alloc(0);
  inp.on('data', (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    for (;;) {
      let msg: any;
      if (mode === 'json') {
        const end = buf.indexOf(0);
        if (end === -1) break;
        msg = JSON.parse(buf.toString('utf8', 0, end));
        buf = buf.subarray(end + 1);
      } else {
        if (buf.length < 7) break;
        const len = buf.readUInt32BE(3);
        if (buf.length < 7 + len) break;
        msg = decode(buf.subarray(0, 7 + len), { i: 0 });
        buf = buf.subarray(7 + len);
      }
      if (msg.id !== undefined) { pending.get(msg.id)?.(msg); pending.delete(msg.id); }
    }
  });
  const send = (method: string, params: object, sessionId?: string): Promise<any> => {
    const n = ++id;
    const msg = { id: n, method, params, sessionId };
    out.write(mode === 'json' ? JSON.stringify(msg) + '\0' : encodeMessage(msg));
    return new Promise((r) => pending.set(n, r));
  };
  const created = await send('Target.createTarget', { url: 'about:blank' });
  if (!created.result) throw new Error(mode + ': ' + JSON.stringify(created));
  const { targetId } = created.result;
  const { result: { sessionId } } = await send('Target.attachToTarget', { targetId, flatten: true });
  const w = await send('Runtime.evaluate', { expression: 'window' }, sessionId);
  const objectId = w.result.result.objectId;
  const payload = 'A'.repeat(BYTES);
  const call = async () => {
    const res = await send('Runtime.callFunctionOn', { functionDeclaration: 'function (req) { return { ok: true, data: req.s + "x" }; }', objectId, arguments: [{ value: { s: payload } }], returnByValue: true, awaitPromise: true }, sessionId);
    if (res.result.result.value.data.length !== BYTES + 1) throw new Error('wrong answer');
  };
  for (let i = 0; i < 100; i++) await call();
  const cpu = () => {
    const by = { browser: 0, renderer: 0, other: 0 };
    for (const p of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
      try {
        const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
        if (!cmd.includes(profile)) continue;
        const st = readFileSync(`/proc/${p}/stat`, 'utf8').slice(readFileSync(`/proc/${p}/stat`, 'utf8').lastIndexOf(')') + 2).split(' ');
        const ms = (Number(st[11]) + Number(st[12])) * 10;
        const kind = /--type=renderer/.test(cmd) ? 'renderer' : /--type=/.test(cmd) ? 'other' : 'browser';
        by[kind] += ms;
      } catch { /* gone */ }
    }
    return by;
  };
  const a = cpu(); const c0 = process.cpuUsage(); const t0 = Date.now();
  for (let i = 0; i < N; i++) await call();
  const c = process.cpuUsage(c0); const b = cpu(); const wall = Date.now() - t0;
  proc.kill('SIGKILL');
  await new Promise((r) => proc.once('exit', r));
  rmSync(profile, { recursive: true, force: true });
  const per = (x: number) => (x / N).toFixed(3);
  return `${mode}: ${per(wall)} ms wall, node ${per((c.user + c.system) / 1000)}, browser ${per(b.browser - a.browser)}, renderer ${per(b.renderer - a.renderer)}, other ${per(b.other - a.other)} ms CPU per call (${BYTES} characters each way)`;
}

for (const mode of ['json', 'cbor', 'json', 'cbor'] as const) console.log(await run(mode));
process.exit(0);
