// Where the memory wall's cgroup goes and what it writes, on fake cgroup trees in a temporary
// directory (the real thing, on this host's cgroups, is test/integration/memory-wall.test.ts).
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChromiumCgroup } from '../../src/render/cgroup.js';
import { groupParents } from '../../src/render/cgroupLayout.js';
import { defaultChromiumMemoryMb, loadConfig, ConfigError } from '../../src/config.js';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'chartshot-cgroup-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const opts = { memoryMb: 300, pidsMax: 200, probeJoin: false };
const ours = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('chartshot-'));

describe('cgroup layout (fake trees)', () => {
  const roots: string[] = [];
  after(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  it('v2: a group under the service own cgroup, with memory.max, no swap and pids.max', async () => {
    const root = tree({ 'cgroup.controllers': 'cpu memory pids', 'svc/cgroup.controllers': 'memory pids', 'svc/cgroup.subtree_control': 'memory pids' });
    roots.push(root);
    const g = await ChromiumCgroup.create({ ...opts, root, selfCgroup: '0::/svc\n' });
    expect(g).to.be.instanceOf(ChromiumCgroup);
    const group = g as ChromiumCgroup;
    expect(group.version).to.equal('v2');
    expect(group.dirs).to.have.length(1);
    expect(group.dirs[0]).to.match(new RegExp(`^${root}/svc/chartshot-${process.pid}-[0-9a-f]{8}$`));
    expect(readFileSync(join(group.dirs[0]!, 'memory.max'), 'utf8')).to.equal(String(300 * 1048576));
    expect(readFileSync(join(group.dirs[0]!, 'pids.max'), 'utf8')).to.equal('200');
    expect(group.status()).to.deep.equal({ cgroup: 'v2', limitMb: 300, pidsMax: 200 });
    expect(group.joinScript()).to.equal(`echo $$ > '${group.dirs[0]}/cgroup.procs' || exit 97`);
  });

  it('hybrid host: the unified mount only when it has the memory controller, else v1 memory + pids', async () => {
    const self = '0::/\n4:memory:/box\n8:pids:/\n';
    const v2 = tree({ 'unified/cgroup.controllers': 'memory pids', 'unified/cgroup.subtree_control': 'memory pids', 'memory/cgroup.procs': '', 'pids/cgroup.procs': '' });
    const v1 = tree({ 'unified/cgroup.controllers': '', 'memory/cgroup.procs': '', 'pids/cgroup.procs': '' });
    roots.push(v2, v1);
    expect(groupParents(v2, self)).to.deep.equal([join(v2, 'unified')]);
    expect(groupParents(v1, self)).to.deep.equal([join(v1, 'memory/box'), join(v1, 'pids')]);
    mkdirSync(join(v1, 'memory/box'), { recursive: true });
    const g = (await ChromiumCgroup.create({ ...opts, root: v1, selfCgroup: self })) as ChromiumCgroup;
    expect(g.version).to.equal('v1');
    expect(readFileSync(join(g.dirs[0]!, 'memory.limit_in_bytes'), 'utf8')).to.equal(String(300 * 1048576));
    expect(readFileSync(join(g.dirs[1]!, 'pids.max'), 'utf8')).to.equal('200');
    expect(g.procsFiles).to.deep.equal(g.dirs.map((d) => join(d, 'cgroup.procs')));
  });

  it('no cgroup: a reason instead of a group, never an exception', async () => {
    const none = tree({ 'README': 'not a cgroup mount' });
    roots.push(none);
    const r = await ChromiumCgroup.create({ ...opts, root: none, selfCgroup: '0::/\n' });
    expect(r).to.not.be.instanceOf(ChromiumCgroup);
    expect((r as { reason: string }).reason).to.match(/no memory controller/);
    const missing = await ChromiumCgroup.create({ ...opts, root: join(none, 'absent'), selfCgroup: '0::/\n' });
    expect((missing as { reason: string }).reason).to.match(/no cgroup filesystem/);
  });

  it('v2 without delegation: the reason names the cgroup', async () => {
    const root = tree({ 'cgroup.controllers': 'memory pids', 'svc/cgroup.controllers': 'pids' });
    roots.push(root);
    const r = await ChromiumCgroup.create({ ...opts, root, selfCgroup: '0::/svc\n' });
    expect((r as { reason: string }).reason).to.equal(`cgroup v2: the memory controller is not delegated to ${root}/svc`);
  });

  it("leftovers of crashed runs are removed; a live instance's group and other groups are kept", async () => {
    const root = tree({ 'cgroup.controllers': 'memory', 'svc/cgroup.controllers': 'memory', 'svc/cgroup.subtree_control': 'memory' });
    roots.push(root);
    // an empty directory stands for an empty group (rmdir works on both)
    for (const n of ['chartshot-999999999-0badc0de', `chartshot-${process.pid}-00000001`, 'other-service']) mkdirSync(join(root, 'svc', n));
    await ChromiumCgroup.create({ ...opts, root, selfCgroup: '0::/svc\n' });
    const left = readdirSync(join(root, 'svc'));
    expect(left).to.not.include('chartshot-999999999-0badc0de');
    expect(left).to.include(`chartshot-${process.pid}-00000001`);
    expect(left).to.include('other-service');
    expect(ours(join(root, 'svc'))).to.have.length(2);
    expect(existsSync(join(root, 'svc', 'chartshot-999999999-0badc0de'))).to.equal(false);
  });
});

describe('memory wall settings', () => {
  it('CHROMIUM_MEMORY_MB defaults to 512 MB + 1.5 GB a page, at most 75% of the host', () => {
    expect(defaultChromiumMemoryMb(2, 24000)).to.equal(3584);
    expect(defaultChromiumMemoryMb(8, 8000)).to.equal(6000);
    expect(defaultChromiumMemoryMb(1, 200)).to.equal(256);
  });

  it('reads CHROMIUM_MEMORY_MB, CHROMIUM_PIDS_MAX and RENDER_MEMORY_MB, refusing bad values', () => {
    const c = loadConfig({ POOL_SIZE: '2', CHROMIUM_MEMORY_MB: '0', CHROMIUM_PIDS_MAX: '300', RENDER_MEMORY_MB: '64' });
    expect([c.chromiumMemoryMb, c.chromiumPidsMax, c.renderMemoryMb]).to.deep.equal([0, 300, 64]);
    expect(loadConfig({ POOL_SIZE: '2' }).chromiumPidsMax).to.equal(640);
    expect(() => loadConfig({ CHROMIUM_MEMORY_MB: '100' })).to.throw(ConfigError, /CHROMIUM_MEMORY_MB must be 0 \(no cgroup\) or at least 256/);
    expect(() => loadConfig({ RENDER_MEMORY_MB: 'lots' })).to.throw(ConfigError, /RENDER_MEMORY_MB/);
    expect(() => loadConfig({ CHROMIUM_PIDS_MAX: '10' })).to.throw(ConfigError, /CHROMIUM_PIDS_MAX/);
  });
});
