// Where Chromium's cgroup goes: which hierarchy (v2, or v1 on older and hybrid hosts), under
// which parent (always the group this service is in), and delegating the v2 controllers; and the
// memory limit the service itself runs under (Node's heap follows it: src/heapLimit.ts).
// cgroup.ts makes, joins and removes the group itself. Why: docs/decisions/0014-memory-wall.md.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export type CgroupVersion = 'v1' | 'v2';

/** Our groups: chartshot-<pid of the service>-<random>; a dead owner means a crashed run. */
export const PREFIX = 'chartshot-';
export const NAME_RE = /^chartshot-(\d+)-[0-9a-f]+$/;

export interface Layout {
  version: CgroupVersion;
  /** v2: the one parent; v1: the memory parent, then the pids parent when there is one. */
  parents: { controller: 'memory' | 'pids' | 'unified'; dir: string }[];
  pidsReason?: string;
}

/** Where this process sits, per hierarchy: "0::/a/b" (v2), "4:memory:/x" (v1). */
function ownPaths(selfCgroup: string): { unified?: string; memory?: string; pids?: string } {
  const out: { unified?: string; memory?: string; pids?: string } = {};
  for (const line of selfCgroup.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    const [, id, ctrls, path] = m;
    // a service that moved itself to a leaf (enableV2Controllers) makes its groups beside that leaf
    if (id === '0' && ctrls === '') out.unified = path!.replace(new RegExp(`/${PREFIX}service-${process.pid}$`), '') || '/';
    for (const c of ctrls!.split(',')) {
      if (c === 'memory') out.memory = path;
      if (c === 'pids') out.pids = path;
    }
  }
  return out;
}

/** A cgroup's directory: its mount plus its path ("/" is the mount itself). */
export const under = (mount: string, path: string) => join(mount, path).replace(/(?<=.)\/+$/, '');
export const read = (p: string) => readFileSync(p, 'utf8').trim();
export const words = (p: string) => (existsSync(p) ? read(p).split(/\s+/).filter(Boolean) : []);
export function errText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code} (${e.syscall ?? 'write'} ${e.path ?? ''})`.replace(/ \)$/, ')') : String(e.message ?? e);
}

/**
 * The hierarchy to use, and under which parent: always under the group this process is in, so
 * the wall nests inside whatever limits the host, a container or a systemd unit already set.
 * v2 first (a pure v2 mount, or a hybrid host's unified mount with the memory controller), then v1.
 */
export function findLayout(root: string, selfCgroup: string): Layout | { reason: string } {
  const own = ownPaths(selfCgroup);
  for (const unified of [root, join(root, 'unified')]) {
    if (own.unified === undefined || !words(join(unified, 'cgroup.controllers')).includes('memory')) continue;
    const parent = under(unified, own.unified);
    const enabled = enableV2Controllers(parent);
    if ('reason' in enabled) return enabled;
    return { version: 'v2', parents: [{ controller: 'unified', dir: parent }], ...(enabled.pids ? {} : { pidsReason: 'the pids controller is not available in this cgroup' }) };
  }
  if (own.memory !== undefined && existsSync(join(root, 'memory', 'cgroup.procs'))) {
    const parents: Layout['parents'] = [{ controller: 'memory', dir: under(join(root, 'memory'), own.memory) }];
    let pidsReason: string | undefined;
    if (own.pids !== undefined && existsSync(join(root, 'pids', 'cgroup.procs'))) parents.push({ controller: 'pids', dir: under(join(root, 'pids'), own.pids) });
    else pidsReason = 'no v1 pids controller on this host';
    return { version: 'v1', parents, ...(pidsReason ? { pidsReason } : {}) };
  }
  if (!existsSync(root)) return { reason: `no cgroup filesystem at ${root}` };
  return { reason: `no memory controller in ${root} (neither a cgroup v2 with memory nor a v1 memory hierarchy)` };
}

/**
 * v2 children get memory (and pids) only when the parent delegates them in cgroup.subtree_control,
 * which a group with processes of its own may not do ("no internal processes"). When this
 * service is the only process there (a container, a systemd unit with Delegate=yes), it moves
 * itself into a leaf child first, as systemd asks delegated services to do.
 */
function enableV2Controllers(parent: string): { pids: boolean } | { reason: string } {
  const available = words(join(parent, 'cgroup.controllers'));
  if (!available.includes('memory')) return { reason: `cgroup v2: the memory controller is not delegated to ${parent}` };
  const want = ['memory', ...(available.includes('pids') ? ['pids'] : [])];
  const missing = () => want.filter((c) => !words(join(parent, 'cgroup.subtree_control')).includes(c));
  if (missing().length === 0) return { pids: want.includes('pids') };
  const enable = () => writeFileSync(join(parent, 'cgroup.subtree_control'), missing().map((c) => '+' + c).join(' '));
  try {
    enable();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EBUSY') return { reason: `cgroup v2: cannot enable ${missing().join(', ')} in ${parent}: ${errText(err)}` };
    const procs = words(join(parent, 'cgroup.procs'));
    if (procs.some((p) => p !== String(process.pid))) {
      return { reason: `cgroup v2: ${parent} holds other processes, so it cannot delegate memory to a child (give the service a delegated cgroup of its own, e.g. systemd Delegate=yes)` };
    }
    try {
      const leaf = join(parent, `${PREFIX}service-${process.pid}`);
      mkdirSync(leaf, { recursive: true });
      writeFileSync(join(leaf, 'cgroup.procs'), String(process.pid));
      enable();
    } catch (err2) {
      return { reason: `cgroup v2: cannot move the service to a leaf of ${parent}: ${errText(err2)}` };
    }
  }
  return { pids: want.includes('pids') };
}

/** v1's "no limit" is the largest page-aligned 63-bit number (9223372036854771712); anything
 *  from 2^62 on is taken as no limit. */
const V1_UNLIMITED = 2 ** 62;

/** A limit file's bytes, or null for no limit (v2 "max", v1's huge number) or no file. */
function limitIn(file: string): number | null {
  if (!existsSync(file)) return null;
  const text = read(file);
  if (!/^\d+$/.test(text)) return null;
  const bytes = Number(text);
  return bytes >= V1_UNLIMITED ? null : bytes;
}

/**
 * The memory limit this process runs under: the smallest memory.max (v2) or
 * memory.limit_in_bytes (v1) of its own cgroup and every group above it that it can see (a
 * container's own group is the root of its cgroup mount); null when none is set. Chromium's own
 * group (cgroup.ts) sits below it, so the limit covers Node and Chromium together.
 */
export function ownMemoryLimit(root = '/sys/fs/cgroup', selfCgroup = readFileSync('/proc/self/cgroup', 'utf8')): { bytes: number; version: CgroupVersion } | null {
  const own = ownPaths(selfCgroup);
  const hierarchies: Array<{ version: CgroupVersion; mount: string; path: string | undefined; file: string }> = [
    { version: 'v2', mount: root, path: own.unified, file: 'memory.max' },
    { version: 'v2', mount: join(root, 'unified'), path: own.unified, file: 'memory.max' },
    { version: 'v1', mount: join(root, 'memory'), path: own.memory, file: 'memory.limit_in_bytes' },
  ];
  let best: { bytes: number; version: CgroupVersion } | null = null;
  for (const h of hierarchies) {
    if (h.path === undefined || !existsSync(h.mount)) continue;
    for (let path = h.path; ; path = dirname(path)) {
      const bytes = limitIn(join(under(h.mount, path), h.file));
      if (bytes !== null && (best === null || bytes < best.bytes)) best = { bytes, version: h.version };
      if (path === '/' || path === '.' || path === '') break;
    }
  }
  return best;
}

/** The directories this process makes Chromium's groups under (tests plant leftovers there). */
export function groupParents(root = '/sys/fs/cgroup', selfCgroup = readFileSync('/proc/self/cgroup', 'utf8')): string[] {
  const layout = findLayout(root, selfCgroup);
  return 'reason' in layout ? [] : layout.parents.map((p) => p.dir);
}
