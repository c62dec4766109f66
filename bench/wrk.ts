// Cache hits measured with wrk: against the running chartshot, and against a bare node:http
// server (bench/bare-server.mjs, its own process) that sends the same bytes with the same headers.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

export interface WrkResult {
  url: string;
  connections: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  socketErrors: string | null;
}

const ms = (v: string, unit: string) => Number(v) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1);

export function wrk(url: string, seconds: number, connections = 32): WrkResult {
  const out = execFileSync('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', url], { encoding: 'utf8' });
  const pick = (re: RegExp) => re.exec(out);
  const p50 = pick(/^\s*50%\s+([\d.]+)(us|ms|s)\s*$/m);
  const p99 = pick(/^\s*99%\s+([\d.]+)(us|ms|s)\s*$/m);
  return {
    url,
    connections,
    seconds,
    perSecond: Math.round(Number(pick(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? NaN)),
    p50Ms: p50 ? Math.round(ms(p50[1]!, p50[2]!) * 1000) / 1000 : NaN,
    p99Ms: p99 ? Math.round(ms(p99[1]!, p99[2]!) * 1000) / 1000 : NaN,
    non2xx: Number(pick(/Non-2xx or 3xx responses:\s+(\d+)/)?.[1] ?? 0),
    socketErrors: pick(/Socket errors:.*$/m)?.[0] ?? null,
  };
}

/** The reply chartshot gives for `url`: status, headers, body. */
export function fetchOnce(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

// Set per connection or per response by node:http itself.
const OWN = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** A bare node:http server replaying chartshot's reply to `url` byte for byte, on `port`, until stop(). */
export async function startBare(url: string, port: number): Promise<{ url: string; bytes: number; stop(): void }> {
  const reply = await fetchOnce(url);
  const headers = Object.fromEntries(Object.entries(reply.headers).filter(([k]) => !OWN.has(k)));
  const dir = mkdtempSync(join(tmpdir(), 'chartshot-bare-'));
  const file = join(dir, 'reply.json');
  writeFileSync(file, JSON.stringify({ status: reply.status, headers, body: reply.body.toString('base64') }));
  const child = spawn('node', [fileURLToPath(new URL('./bare-server.mjs', import.meta.url)), file, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
    });
  } catch (err) {
    stop();
    throw err;
  }
  const u = new URL(url);
  return { url: `http://127.0.0.1:${port}${u.pathname}${u.search}`, bytes: reply.body.length, stop };
}

/** wrk against a bare node:http server replaying chartshot's reply to `url` byte for byte. */
export async function wrkBare(url: string, port: number, seconds: number): Promise<WrkResult & { bytes: number }> {
  const bare = await startBare(url, port);
  try {
    return { ...wrk(bare.url, seconds), bytes: bare.bytes };
  } finally {
    bare.stop();
  }
}

/** Several wrk runs of one URL as one result: rates averaged, p50 the median, p99 the highest. */
export function mergeWrk(runs: WrkResult[]): WrkResult {
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const p50s = sorted(runs.map((r) => r.p50Ms));
  return {
    url: runs[0]!.url,
    connections: runs[0]!.connections,
    seconds: runs.reduce((s, r) => s + r.seconds, 0),
    perSecond: Math.round(runs.reduce((s, r) => s + r.perSecond * r.seconds, 0) / runs.reduce((s, r) => s + r.seconds, 0)),
    p50Ms: p50s[Math.floor((p50s.length - 1) / 2)]!,
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
    socketErrors: runs.find((r) => r.socketErrors)?.socketErrors ?? null,
  };
}
