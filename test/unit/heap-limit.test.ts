// Node's heap limit as config.ts derives it: MAX_HEAP_MB, a quarter of the memory the process may
// use, the cgroup limit read from fake cgroup trees, and a --max-old-space-size Node already has.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownMemoryLimit } from '../../src/render/cgroupLayout.js';
import { defaultHeapMb, heapFlagMb } from '../../src/heapLimit.js';
import { ConfigError, heapLimitFrom } from '../../src/config.js';

const GiB = 1024 ** 3;
const roots: string[] = [];
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'chartshot-heap-cgroup-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('heap limit', () => {
  after(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  it('default: a quarter of the memory, between 256 and 4096 MB', () => {
    expect(defaultHeapMb(2048)).to.equal(512);
    expect(defaultHeapMb(8192)).to.equal(2048);
    expect(defaultHeapMb(512)).to.equal(256);
    expect(defaultHeapMb(65536)).to.equal(4096);
  });

  it("Node's own flag: the last --max-old-space-size (either spelling, = or a separate value)", () => {
    expect(heapFlagMb(['--no-memory-reducer'])).to.equal(null);
    expect(heapFlagMb(['--max-old-space-size=300'])).to.equal(300);
    expect(heapFlagMb(['--max_old_space_size', '700', '--max-old-space-size=800'])).to.equal(800);
    expect(heapFlagMb(['--max-old-space-size-x=3'])).to.equal(null);
  });

  it('MAX_HEAP_MB, else the memory; a flag Node already has is in effect, named as the source unless it is the same figure', () => {
    const memory = { mb: 4096, source: 'cgroup v2 memory.max' as const };
    const base = { memoryMb: 4096, memorySource: 'cgroup v2 memory.max' };
    expect(heapLimitFrom({}, memory, [])).to.deep.equal({ ...base, mb: 1024, source: 'cgroup v2 memory.max', applied: false });
    expect(heapLimitFrom({ MAX_HEAP_MB: '600' }, memory, [])).to.deep.equal({ ...base, mb: 600, source: 'MAX_HEAP_MB', applied: false });
    // started again by chartshot serve with the figure it derived
    expect(heapLimitFrom({ MAX_HEAP_MB: '600' }, memory, ['--max-old-space-size=600'])).to.deep.equal({ ...base, mb: 600, source: 'MAX_HEAP_MB', applied: true });
    expect(heapLimitFrom({}, memory, ['--max-old-space-size=1024'])).to.deep.equal({ ...base, mb: 1024, source: 'cgroup v2 memory.max', applied: true });
    // the operator's own flag wins, and says so
    expect(heapLimitFrom({ MAX_HEAP_MB: '600' }, memory, ['--max-old-space-size=300'])).to.deep.equal({ ...base, mb: 300, source: 'node --max-old-space-size', applied: true });
    expect(() => heapLimitFrom({ MAX_HEAP_MB: '64' }, memory, [])).to.throw(ConfigError, /MAX_HEAP_MB/);
    expect(() => heapLimitFrom({ MAX_HEAP_MB: 'lots' }, memory, [])).to.throw(ConfigError, /MAX_HEAP_MB/);
  });

  it("cgroup v2: the smallest memory.max of the process's group and those above it; max is no limit", () => {
    const root = tree({ 'cgroup.controllers': 'memory', 'a/memory.max': String(3 * GiB), 'a/b/memory.max': 'max', 'a/b/c/memory.max': 'max' });
    expect(ownMemoryLimit(root, '0::/a/b/c\n')).to.deep.equal({ bytes: 3 * GiB, version: 'v2' });
    // a container: its own group is the mount's root
    const container = tree({ 'cgroup.controllers': 'memory', 'memory.max': String(2 * GiB) });
    expect(ownMemoryLimit(container, '0::/\n')).to.deep.equal({ bytes: 2 * GiB, version: 'v2' });
    expect(ownMemoryLimit(tree({ 'cgroup.controllers': 'memory', 'a/memory.max': 'max' }), '0::/a\n')).to.equal(null);
  });

  it("cgroup v1 (a hybrid host): memory.limit_in_bytes of the memory hierarchy; v1's huge number is no limit", () => {
    const self = '0::/\n4:memory:/box/job\n';
    const limited = tree({ 'unified/cgroup.controllers': '', 'memory/box/memory.limit_in_bytes': String(GiB), 'memory/box/job/memory.limit_in_bytes': '9223372036854771712' });
    expect(ownMemoryLimit(limited, self)).to.deep.equal({ bytes: GiB, version: 'v1' });
    const none = tree({ 'memory/memory.limit_in_bytes': '9223372036854771712', 'memory/box/job/memory.limit_in_bytes': '9223372036854771712' });
    expect(ownMemoryLimit(none, self)).to.equal(null);
  });
});
