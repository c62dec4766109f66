// CPU time split by process, from /proc/<pid>/stat: the chartshot server's Node process, its
// Chromium browser process, renderer processes, the other Chromium processes (GPU, utility,
// zygote, crashpad), the peer, and the load generator (this process and what it runs, e.g. wrk).
// Also the whole box (/proc/stat), which on a shared machine includes everyone else.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

export const PARTS = ['node server', 'browser process', 'renderers', 'gpu/utility', 'peer', 'load generator'] as const;
export type Part = (typeof PARTS)[number];
export type Split = Record<Part, number> & { box: number };

let msPerTick = 0;
const kinds = new Map<string, Part>();

interface Stat {
  ppid: number;
  own: number;
  reaped: number;
  start: string;
}

function readStat(pid: number): Stat {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // after the command name (which may hold spaces and parentheses): state ppid ... utime stime cutime cstime ... starttime
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]), start: f[19]! };
}

/** What a process under the server is, by its command line (cached per pid and start time). */
function kindOf(pid: number, start: string, isRoot: boolean): Part {
  if (isRoot) return 'node server';
  const key = `${pid}/${start}`;
  let k = kinds.get(key);
  if (!k) {
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      /* gone */
    }
    const type = /--type=([a-z-]+)/.exec(cmd)?.[1];
    if (type === 'renderer') k = 'renderers';
    else if (type || /crashpad/.test(cmd)) k = 'gpu/utility';
    else if (/chrom/i.test(cmd)) k = 'browser process';
    else k = 'node server';
    kinds.set(key, k);
  }
  return k;
}

function boxMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: busy = all but idle and iowait
  const busy = line.slice(0, 8).reduce((s, v, i) => (i === 3 || i === 4 ? s : s + v), 0);
  return busy * msPerTick;
}

/**
 * CPU ms used so far by each part. Time of a process that exited counts where its parent reaped
 * it (cutime): Chromium's exited processes (recycled renderers, mostly) count as renderers.
 */
export function cpuSnapshot(roots: { server?: number; peer?: number; loadGenerator: number }): Split {
  if (!msPerTick) msPerTick = 1000 / (Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100);
  const stats = new Map<number, Stat>();
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const st = readStat(Number(name));
      stats.set(Number(name), st);
      const list = children.get(st.ppid) ?? [];
      list.push(Number(name));
      children.set(st.ppid, list);
    } catch {
      /* ended while we looked */
    }
  }
  const out = Object.fromEntries(PARTS.map((p) => [p, 0])) as Split;
  if (roots.server !== undefined) {
    const stack = [roots.server];
    while (stack.length) {
      const pid = stack.pop()!;
      const st = stats.get(pid);
      if (!st) continue;
      const kind = kindOf(pid, st.start, pid === roots.server);
      out[kind] += st.own;
      out[kind === 'node server' ? 'node server' : 'renderers'] += st.reaped;
      stack.push(...(children.get(pid) ?? []));
    }
  }
  const tree = (root: number) => {
    let t = 0;
    const stack = [root];
    while (stack.length) {
      const pid = stack.pop()!;
      const st = stats.get(pid);
      if (!st) continue;
      t += st.own + st.reaped;
      stack.push(...(children.get(pid) ?? []));
    }
    return t;
  };
  if (roots.peer !== undefined) out.peer = tree(roots.peer);
  // this process only (its own time plus what it reaped: wrk runs and exits inside a window);
  // the server and the peer are its children too but are counted above and outlive every window
  const lg = stats.get(roots.loadGenerator);
  out['load generator'] = lg ? lg.own + lg.reaped : 0;
  for (const p of PARTS) out[p] *= msPerTick;
  out.box = boxMs();
  return out;
}

export function splitDelta(a: Split, b: Split): Split {
  const out = { box: b.box - a.box } as Split;
  for (const p of PARTS) out[p] = b[p] - a[p];
  return out;
}

export function addSplit(into: Split | null, d: Split): Split {
  if (!into) return { ...d };
  for (const p of PARTS) into[p] += d[p];
  into.box += d.box;
  return into;
}

/** ms per render for each part, and the sum over the parts that belong to the side measured. */
export function perRender(s: Split, renders: number): Record<string, number> {
  const r = (x: number) => Math.round((x / renders) * 100) / 100;
  const out: Record<string, number> = {};
  for (const p of PARTS) out[p] = r(s[p]);
  out['chartshot side (server + Chromium + load generator)'] = r(s['node server'] + s['browser process'] + s.renderers + s['gpu/utility'] + s['load generator']);
  out['box (all processes on the machine)'] = r(s.box);
  return out;
}
