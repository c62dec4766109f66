// The parent side of the benchmark's peer: sets bench/peer up (bench/peer/setup.sh), forks
// bench/peer/worker.mjs (chartjs-node-canvas in one Node process) and runs workloads in it.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './lib.js';

const DIR = fileURLToPath(new URL('./peer/', import.meta.url));

export interface PeerResult extends LoadResult {
  firstError: string | null;
  latencies: number[];
  /** best.mjs only: CPU time of the peer's process (all its threads) per render. */
  cpuMsPerRender?: number;
  /** best.mjs only: latencies by body index, and each body's PNG size. */
  byBody?: number[][];
  bytes?: number[];
}

export interface PeerOptions {
  /** The worker under bench/peer/: worker.mjs (the old bench's peer) or best.mjs (the peer at its best). */
  worker?: 'worker.mjs' | 'best.mjs';
  /** Extra environment, e.g. PEER_MODE=cnc for best.mjs. */
  env?: Record<string, string>;
}

export class Peer {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (r: PeerResult & { png?: string }) => void; reject: (e: Error) => void }>();

  private constructor(
    private readonly child: ChildProcess,
    readonly versions: Record<string, string>,
    readonly mode: string,
  ) {
    child.on('message', (m: { id: number; result?: PeerResult; png?: string; error?: string }) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.result) w.resolve(m.result);
      else if (m.png) w.resolve({ png: m.png } as PeerResult & { png: string });
      else w.reject(new Error(`peer: ${m.error}`));
    });
    child.on('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`peer exited with ${code}`));
      this.waiting.clear();
    });
  }

  static async start(opts: PeerOptions = {}): Promise<Peer> {
    execFileSync('bash', [DIR + 'setup.sh'], { stdio: 'inherit' });
    const worker = opts.worker ?? 'worker.mjs';
    const child = fork(DIR + worker, [], { cwd: DIR, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [], env: { ...process.env, ...opts.env } });
    const hello = await new Promise<{ versions: Record<string, string>; mode?: string; trim?: boolean; newCanvas?: boolean }>((resolve, reject) => {
      child.once('message', (m: { ready?: boolean; versions: Record<string, string>; mode?: string; trim?: boolean; newCanvas?: boolean }) => (m.ready ? resolve(m) : reject(new Error('peer: bad hello'))));
      child.once('exit', (code) => reject(new Error(`peer exited with ${code} during start`)));
    });
    const mode = worker === 'best.mjs' ? `${hello.mode}${hello.trim === false ? ' (no trim)' : ''}${hello.newCanvas ? ' (new canvas per render)' : ''}` : 'worker.mjs';
    return new Peer(child, hello.versions, mode);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Renders bodies[i % n] for i < total with `concurrency` async loops in the peer's process. */
  run(bodies: string[], concurrency: number, total: number): Promise<PeerResult> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ id, bodies, concurrency, total });
    });
  }

  /** One render of `body` (best.mjs only): the PNG. */
  png(body: string): Promise<Buffer> {
    const id = this.nextId++;
    return new Promise<PeerResult & { png?: string }>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ id, png: body });
    }).then((r) => Buffer.from(r.png!, 'base64'));
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.send({ type: 'exit' });
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}
