// Redis helpers for the Redis store tests: a connection on the run's throwaway server with a
// key prefix of its own, and a Redis server of a test's own that it may stop and start again.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectRedis, type RedisLink } from '../../src/store/redis/client.js';
import { freePort, testRedis } from './services.js';

/** A link to the run's Redis under a fresh prefix (or `prefix`, to share keys between two links). */
export async function testLink(prefix?: string): Promise<{ link: RedisLink; prefix: string; url: string }> {
  const r = await testRedis();
  const p = prefix ?? r.prefix;
  return { link: await connectRedis({ url: r.url, prefix: p }), prefix: p, url: r.url };
}

/** A redis-server of this test's own on a free port, in a temporary folder; stop() and start() it at will. */
export class OwnRedis {
  private proc: ChildProcess | null = null;
  private readonly dir = mkdtempSync(join(tmpdir(), 'chartshot-own-redis-'));

  private constructor(readonly port: number) {}

  static async create(): Promise<OwnRedis> {
    const r = new OwnRedis(await freePort());
    await r.start();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const bin = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));
    if (!bin) throw new Error('redis-server is missing: run "npm run setup"');
    const proc = spawn(bin, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc = proc;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer) => {
        out += d.toString();
        if (out.includes('Ready to accept connections')) resolve();
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.once('exit', () => reject(new Error(`redis-server exited: ${out.slice(-1000)}`)));
    });
  }

  async stop(): Promise<void> {
    const p = this.proc;
    this.proc = null;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    p.kill('SIGKILL');
    await exited;
  }

  /** Freezes the server (SIGSTOP): connected, but answering nothing. */
  pause(): void {
    this.proc?.kill('SIGSTOP');
  }

  resume(): void {
    this.proc?.kill('SIGCONT');
  }

  async remove(): Promise<void> {
    this.resume();
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

