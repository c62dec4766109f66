// Node's heap limit follows the memory the process may use (a cgroup's limit) or MAX_HEAP_MB:
// `chartshot serve` starts Node again once with --max-old-space-size, passes signals on, ends
// as the server ends, and /v1/status shows the limit in effect and where it came from. The real
// command (dist/cli.js), real Chromium, and for the cgroup case a real memory cgroup (needs root
// or a delegated cgroup, as the memory-wall tests do).
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupParents } from '../../src/render/cgroupLayout.js';

interface Served {
  proc: ChildProcess;
  url: string;
  log: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const dirs: string[] = [];
const started: ChildProcess[] = [];

/** `node [nodeArgs] dist/cli.js serve` on a free port (through `sh` joining `cgroupProcs` first
 *  when given), once it logs that it listens. */
function serve(env: Record<string, string>, nodeArgs: string[] = ['--no-memory-reducer'], cgroupProcs?: string): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-heap-'));
  dirs.push(dataDir);
  const node = ['node', ...nodeArgs, 'dist/cli.js', 'serve'];
  const [cmd, args] = cgroupProcs ? ['/bin/sh', ['-c', `echo $$ > '${cgroupProcs}' && exec ${node.join(' ')}`]] : [node[0]!, node.slice(1)];
  const proc = spawn(cmd, args, {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', POOL_SIZE: '1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started.push(proc);
  let out = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => proc.once('exit', (code, signal) => r({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out.slice(-2000)}`)), 240_000);
    const read = (d: Buffer) => {
      out += d.toString();
      const m = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"chartshot listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1]!, log: () => out, exited });
      }
    };
    proc.stdout!.on('data', read);
    proc.stderr!.on('data', read);
    void exited.then(({ code, signal }) => reject(new Error(`server exited (${signal ?? code}): ${out.slice(-2000)}`)));
  });
}

/** The processes whose parent is `pid`, with their command lines. */
function childrenOf(pid: number): Array<{ pid: number; args: string[] }> {
  const out: Array<{ pid: number; args: string[] }> = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== pid) continue;
      out.push({ pid: Number(d), args: readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').filter(Boolean) });
    } catch {
      /* exited */
    }
  }
  return out;
}

/** A live process (not gone, not a zombie). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

async function nodeHeap(url: string): Promise<Record<string, unknown>> {
  const status = (await (await fetch(`${url}/v1/status`)).json()) as { nodeHeap: Record<string, unknown>; memoryWall?: { limitMb: number | null } };
  return { ...status.nodeHeap, wallMb: status.memoryWall?.limitMb ?? null };
}

/** The one node child `chartshot serve` started, with the flag. */
function serverChild(s: Served): { pid: number; args: string[] } {
  const nodes = childrenOf(s.proc.pid!).filter((c) => /node$/.test(c.args[0]!));
  expect(nodes, 'one Node started again').to.have.length(1);
  return nodes[0]!;
}

describe('Node heap limit (MAX_HEAP_MB, the cgroup limit) applied by chartshot serve', function () {
  this.timeout(600_000);
  after(() => {
    for (const p of started) {
      try {
        if (p.pid) process.kill(-p.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('MAX_HEAP_MB=512: Node runs again with --max-old-space-size=512 and its own flags, /v1/status shows it; SIGTERM to the first process stops both, exit 0', async () => {
    const s = await serve({ MAX_HEAP_MB: '512' });
    const child = serverChild(s);
    expect(child.args).to.include.members(['--no-memory-reducer', '--max-old-space-size=512', 'serve']);
    const heap = await nodeHeap(s.url);
    expect(heap).to.include({ oldSpaceMb: 512, source: 'MAX_HEAP_MB' });
    // V8's limit: the old space asked for plus the young generation
    expect(heap.limitMb).to.be.within(512, 600);
    s.proc.kill('SIGTERM');
    expect(await s.exited).to.deep.equal({ code: 0, signal: null });
    expect(s.log()).to.contain('chartshot stopped');
    expect(alive(child.pid)).to.equal(false);
  });

  it('in a cgroup limited to 2 GiB: a quarter of it, read from the cgroup (Chromium gets at most three quarters); a server killed outright ends the first process by the same signal', async () => {
    const parents = groupParents();
    expect(parents.length, 'no cgroup could be made here (needs root or a delegated cgroup)').to.be.greaterThan(0);
    const v1 = parents[0]!.includes('/memory');
    const group = join(parents[0]!, `heap-test-${process.pid}`);
    mkdirSync(group, { recursive: true });
    try {
      writeFileSync(join(group, v1 ? 'memory.limit_in_bytes' : 'memory.max'), String(2 * 1024 ** 3));
      const s = await serve({}, ['--no-memory-reducer'], join(group, 'cgroup.procs'));
      const child = serverChild(s);
      expect(child.args).to.include('--max-old-space-size=512');
      expect(await nodeHeap(s.url)).to.include({
        oldSpaceMb: 512,
        source: v1 ? 'cgroup v1 memory.limit_in_bytes' : 'cgroup v2 memory.max',
        memoryMb: 2048,
        wallMb: 1536,
      });
      // as the kernel's OOM killer would end it
      process.kill(child.pid, 'SIGKILL');
      expect(await s.exited).to.deep.equal({ code: null, signal: 'SIGKILL' });
    } finally {
      // what the server left in the group: its Chromium, in a group of its own inside (its own
      // process group too, so only the cgroup reaches it once the server was killed outright)
      const clear = (dir: string): boolean => {
        if (!existsSync(dir)) return true;
        for (const sub of readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())) clear(join(dir, sub.name));
        for (const pid of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
          try {
            process.kill(Number(pid), 'SIGKILL');
          } catch {
            /* gone */
          }
        }
        try {
          rmdirSync(dir);
        } catch {
          /* still busy: tried again */
        }
        return !existsSync(dir);
      };
      await until(() => clear(group), 30_000);
    }
  });

  it('the first process killed outright: the server sees its channel close and stops by itself, Chromium with it', async () => {
    const s = await serve({});
    const child = serverChild(s);
    const chromium = childrenOf(child.pid).map((c) => c.pid);
    expect(chromium.length, 'Chromium under the server').to.be.greaterThan(0);
    process.kill(s.proc.pid!, 'SIGKILL');
    expect(await until(() => !alive(child.pid), 60_000), 'the server stopped').to.equal(true);
    expect(await until(() => chromium.every((p) => !alive(p)), 30_000), 'its Chromium stopped').to.equal(true);
  });

  it('node --max-old-space-size given by the operator: no second Node, and /v1/status names the flag as the source', async () => {
    const s = await serve({ MAX_HEAP_MB: '512' }, ['--max-old-space-size=300']);
    expect(childrenOf(s.proc.pid!).filter((c) => /node$/.test(c.args[0]!))).to.have.length(0);
    expect(await nodeHeap(s.url)).to.include({ oldSpaceMb: 300, source: 'node --max-old-space-size' });
    s.proc.kill('SIGTERM');
    expect((await s.exited).code).to.equal(0);
  });
});
