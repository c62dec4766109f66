// The render call's shape over a minimal CDP pipe transport (one write per message, one
// JSON.parse per answer, no puppeteer), on about:blank in a Chromium of its own: this Node
// process's CPU per call, against bench/cdp-cost.ts's puppeteer path (what driving CDP directly
// could save on the Node side). Uses --no-sandbox when run as root: a measurement, not a service.
//
//   node --import tsx bench/cdp-raw.ts [calls]
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const N = Number(process.argv[2] ?? 2000);
const profile = mkdtempSync(join(tmpdir(), 'pp-raw-'));
const proc = spawn('/usr/bin/chromium', ['--headless=new', '--remote-debugging-pipe', '--disable-gpu', '--no-first-run', `--user-data-dir=${profile}`, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), 'about:blank'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
const out = proc.stdio[3] as NodeJS.WritableStream;
const inp = proc.stdio[4] as NodeJS.ReadableStream;
let id = 0;
const pending = new Map<number, (v: any) => void>();
let buf: Buffer[] = [];
inp.on('data', (chunk: Buffer) => {
  let start = 0;
  for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
    buf.push(chunk.subarray(start, end));
    const msg = JSON.parse(Buffer.concat(buf).toString('utf8'));
    buf = [];
    start = end + 1;
    if (msg.id !== undefined) { pending.get(msg.id)?.(msg); pending.delete(msg.id); }
  }
  if (start < chunk.length) buf.push(chunk.subarray(start));
});
function send(method: string, params: object, sessionId?: string): Promise<any> {
  const n = ++id;
  out.write(JSON.stringify({ id: n, method, params, sessionId }) + '\0');
  return new Promise((r) => pending.set(n, r));
}
const { result: { targetId } } = await send('Target.createTarget', { url: 'about:blank' });
const { result: { sessionId } } = await send('Target.attachToTarget', { targetId, flatten: true });
const w = await send('Runtime.evaluate', { expression: 'window' }, sessionId);
const objectId = w.result.result.objectId;
const payload = 'A'.repeat(3000);
const call = () => send('Runtime.callFunctionOn', { functionDeclaration: 'function (req) { return { ok: true, data: req.s + "x" }; }', objectId, arguments: [{ value: { s: payload } }], returnByValue: true, awaitPromise: true }, sessionId);
for (let i = 0; i < 200; i++) await call();
const c0 = process.cpuUsage(); const t0 = Date.now();
for (let i = 0; i < N; i++) await call();
const c = process.cpuUsage(c0);
console.log(`raw pipe: ${((Date.now() - t0) / N).toFixed(3)} ms wall, node ${((c.user + c.system) / 1000 / N).toFixed(3)} ms per call`);
proc.kill('SIGKILL');
process.exit(0);
