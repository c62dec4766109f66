// The parent side of the benchmark's peer: sets bench/peer up (bench/peer/setup.sh), forks
// bench/peer/worker.mjs (chartjs-node-canvas in one Node process) and runs workloads in it.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './lib.js';

const DIR = fileURLToPath(new URL('./peer/', import.meta.url));

export interface PeerResult extends LoadResult {
  firstError: string | null;
  latencies: number[];
}

export class Peer {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (r: PeerResult) => void; reject: (e: Error) => void }>();

  private constructor(
    private readonly child: ChildProcess,
    readonly versions: Record<string, string>,
  ) {
    child.on('message', (m: { id: number; result?: PeerResult; error?: string }) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.result) w.resolve(m.result);
      else w.reject(new Error(`peer: ${m.error}`));
    });
    child.on('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`peer exited with ${code}`));
      this.waiting.clear();
    });
  }

  static async start(): Promise<Peer> {
    execFileSync('bash', [DIR + 'setup.sh'], { stdio: 'inherit' });
    const child = fork(DIR + 'worker.mjs', [], { cwd: DIR, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
    const versions = await new Promise<Record<string, string>>((resolve, reject) => {
      child.once('message', (m: { ready?: boolean; versions: Record<string, string> }) => (m.ready ? resolve(m.versions) : reject(new Error('peer: bad hello'))));
      child.once('exit', (code) => reject(new Error(`peer exited with ${code} during start`)));
    });
    return new Peer(child, versions);
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

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.send({ type: 'exit' });
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}
