// The memory wall around Chromium: a cgroup (v2, or v1 on older and hybrid hosts) with a memory
// limit and a task limit that the browser joins before it forks anything, so every renderer it
// ever starts is inside. When the group's limit is hit, the kernel's OOM killer picks a process
// inside the group (a renderer: Chromium gives them a high oom_score_adj), never the service or
// anything else on the host. Why and what without cgroups: docs/decisions/0014-memory-wall.md.
// This file makes, joins, watches and removes the group; where it goes: cgroupLayout.ts.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sleep } from '../settle.js';
import { NAME_RE, PREFIX, errText, findLayout, words, type CgroupVersion } from './cgroupLayout.js';

export type { CgroupVersion } from './cgroupLayout.js';

/** What /v1/status says about the wall (docs/security.md, "The memory wall"). */
export interface MemoryWallStatus {
  cgroup: CgroupVersion | 'none';
  /** The cgroup's memory limit for Chromium's whole process tree, MB; null without a cgroup. */
  limitMb: number | null;
  /** The cgroup's task limit (processes and threads); null without one. */
  pidsMax: number | null;
  /** Why there is no cgroup (or no task limit): what to change to get one. */
  reason?: string;
}

export interface CgroupOptions {
  memoryMb: number;
  pidsMax: number;
  /** Where cgroup filesystems are mounted (tests point it elsewhere). */
  root?: string;
  /** The text of /proc/self/cgroup (tests pass their own). */
  selfCgroup?: string;
  /** Checks that a process can join (a short-lived shell writes its pid); tests may skip it. */
  probeJoin?: boolean;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function procsOf(dir: string): number[] {
  try {
    return words(join(dir, 'cgroup.procs')).map(Number).filter((n) => n > 0);
  } catch {
    return [];
  }
}


/** Kills what is left in a group and removes it; a group that will not go is left (false). */
async function removeGroup(dir: string, deadlineMs = 3000): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    if (!existsSync(dir)) return true;
    try {
      rmdirSync(dir);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return true;
      if (code !== 'EBUSY' || Date.now() > until) return false;
    }
    // Chromium's children outlive the browser by a moment; any still there are ours to end.
    if (existsSync(join(dir, 'cgroup.kill'))) {
      try {
        writeFileSync(join(dir, 'cgroup.kill'), '1');
      } catch {
        /* older kernel: kill one by one below */
      }
    }
    for (const pid of procsOf(dir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    await sleep(50);
  }
}

/**
 * Groups of runs that crashed (their owner's pid is gone) under `parent`: their processes are
 * killed and the groups removed. Groups of live instances, and anything not ours, are left.
 */
async function sweepLeftovers(parent: string): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = NAME_RE.exec(name) ?? /^chartshot-service-(\d+)$/.exec(name);
    if (!m || isAlive(Number(m[1]))) continue;
    await removeGroup(join(parent, name), 1000);
  }
}

/** One cgroup (one directory per v1 hierarchy) holding one browser's process tree. */
export class ChromiumCgroup {
  private constructor(
    readonly version: CgroupVersion,
    /** The group's directories: v2 one, v1 memory (and pids). */
    readonly dirs: string[],
    readonly limitMb: number,
    readonly pidsMax: number | null,
    private readonly pidsReason: string | undefined,
  ) {}

  /** Creates the group, or says why it cannot. Never throws. */
  static async create(opts: CgroupOptions): Promise<ChromiumCgroup | { reason: string }> {
    const root = opts.root ?? '/sys/fs/cgroup';
    let selfCgroup: string;
    try {
      selfCgroup = opts.selfCgroup ?? readFileSync('/proc/self/cgroup', 'utf8');
    } catch (err) {
      return { reason: `cannot read /proc/self/cgroup: ${errText(err)}` };
    }
    const layout = findLayout(root, selfCgroup);
    if ('reason' in layout) return layout;
    for (const p of layout.parents) await sweepLeftovers(p.dir);
    const name = `${PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`;
    const made: string[] = [];
    const bytes = String(opts.memoryMb * 1024 * 1024);
    try {
      let pidsMax: number | null = null;
      for (const p of layout.parents) {
        const dir = join(p.dir, name);
        mkdirSync(dir);
        made.push(dir);
        if (p.controller === 'unified') {
          writeFileSync(join(dir, 'memory.max'), bytes);
          // no swap: the host never swaps for Chromium (absent when the kernel has no swap accounting)
          if (existsSync(join(dir, 'memory.swap.max'))) writeFileSync(join(dir, 'memory.swap.max'), '0');
          if (!layout.pidsReason) {
            writeFileSync(join(dir, 'pids.max'), String(opts.pidsMax));
            pidsMax = opts.pidsMax;
          }
        } else if (p.controller === 'memory') {
          writeFileSync(join(dir, 'memory.limit_in_bytes'), bytes);
          // memory + swap at the same figure: no swap (memsw exists only with swap accounting on)
          if (existsSync(join(dir, 'memory.memsw.limit_in_bytes'))) writeFileSync(join(dir, 'memory.memsw.limit_in_bytes'), bytes);
        } else {
          writeFileSync(join(dir, 'pids.max'), String(opts.pidsMax));
          pidsMax = opts.pidsMax;
        }
      }
      const group = new ChromiumCgroup(layout.version, made, opts.memoryMb, pidsMax, layout.pidsReason);
      if (opts.probeJoin !== false) {
        const probe = spawnSync('/bin/sh', ['-c', group.joinScript()], { timeout: 5000, encoding: 'utf8' });
        if (probe.status !== 0) throw new Error(`a process cannot join ${made.join(', ')}: ${probe.stderr.trim() || 'exit ' + String(probe.status)}`);
      }
      return group;
    } catch (err) {
      for (const dir of made.reverse()) await removeGroup(dir, 1000);
      return { reason: `cgroup ${layout.version}: cannot create ${name} under ${layout.parents.map((p) => p.dir).join(', ')}: ${errText(err)}` };
    }
  }

  /** The cgroup.procs files a process writes its pid to, to join. */
  get procsFiles(): string[] {
    return this.dirs.map((d) => join(d, 'cgroup.procs'));
  }

  /** Shell lines that move the shell itself ($$) into the group, failing loudly. */
  joinScript(): string {
    return this.procsFiles.map((f) => `echo $$ > '${f.replace(/'/g, `'\\''`)}' || exit 97`).join('\n');
  }

  /** Pids of the processes in the group now. */
  pids(): number[] {
    return procsOf(this.dirs[0]!);
  }

  /** The file oomKills() reads, open for the group's life (-1: not open). */
  private eventsFd = -1;
  private readonly eventsBuf = Buffer.alloc(512);

  /**
   * Times the kernel's OOM killer ended a process of this group (v1 memory.oom_control, v2
   * memory.events). Read before every render (pool.ts), so the file stays open and is read
   * again from offset 0: one pread, which a cgroup file answers with its current figures, in
   * place of open, stat, read and close (15 -> 3 us of CPU a call).
   */
  oomKills(): number {
    try {
      if (this.eventsFd === -1) this.eventsFd = openSync(join(this.dirs[0]!, this.version === 'v2' ? 'memory.events' : 'memory.oom_control'), 'r');
      const n = readSync(this.eventsFd, this.eventsBuf, 0, this.eventsBuf.length, 0);
      const m = /^oom_kill (\d+)$/m.exec(this.eventsBuf.toString('latin1', 0, n));
      return m ? Number(m[1]) : 0;
    } catch {
      // the group is gone (or the file cannot be opened): 0, as before, and opened again next time
      this.closeEvents();
      return 0;
    }
  }

  private closeEvents(): void {
    if (this.eventsFd === -1) return;
    try {
      closeSync(this.eventsFd);
    } catch {
      /* closed already */
    }
    this.eventsFd = -1;
  }

  status(): MemoryWallStatus {
    return { cgroup: this.version, limitMb: this.limitMb, pidsMax: this.pidsMax, ...(this.pidsReason ? { reason: `no task limit: ${this.pidsReason}` } : {}) };
  }

  /** Ends whatever is left in the group and removes it (true when every directory is gone). */
  async remove(): Promise<boolean> {
    this.closeEvents();
    let all = true;
    for (const dir of this.dirs) if (!(await removeGroup(dir))) all = false;
    return all;
  }
}

/** The status without a cgroup. */
export function noWall(reason: string): MemoryWallStatus {
  return { cgroup: 'none', limitMb: null, pidsMax: null, reason };
}
