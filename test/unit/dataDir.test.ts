// DATA_DIR and master.key are owner-only, also when an older build left them readable.
import { expect } from 'chai';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMasterKey } from '../../src/store/masterKey.js';
import { ensurePrivateDir } from '../../src/store/dataDir.js';

/** Permission bits of a data directory and of its master.key. */
const modes = (dir: string) => ({ dir: statSync(dir).mode & 0o777, key: statSync(join(dir, 'master.key')).mode & 0o777 });

describe('DATA_DIR permissions', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'chartshot-datadir-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('creates DATA_DIR 0700 and master.key 0600', () => {
    const dir = join(root, 'a', 'data');
    loadMasterKey(dir);
    expect(modes(dir)).to.deep.equal({ dir: 0o700, key: 0o600 });
  });

  it('takes group and other access away from an existing DATA_DIR and master.key', () => {
    const dir = join(root, 'data');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'master.key'), 'ab'.repeat(32) + '\n');
    chmodSync(join(dir, 'master.key'), 0o644);
    expect(loadMasterKey(dir).toString('hex')).to.equal('ab'.repeat(32));
    expect(modes(dir)).to.deep.equal({ dir: 0o700, key: 0o600 });
  });

  it('leaves a shared (world-writable) directory alone', () => {
    const dir = join(root, 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o1777);
    ensurePrivateDir(dir);
    expect(statSync(dir).mode & 0o7777).to.equal(0o1777);
  });
});
