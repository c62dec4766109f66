import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ensurePrivateDir, privateFile } from './dataDir.js';

/** The server's master key (DATA_DIR/master.key, created 0600 on first start). Signing secrets derive from it. */
export function loadMasterKey(dataDir: string | ':memory:'): Buffer {
  if (dataDir === ':memory:') return randomBytes(32);
  ensurePrivateDir(dataDir);
  const file = join(dataDir, 'master.key');
  if (!existsSync(file)) {
    try {
      writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  // A key written by an older build or by hand may be readable by others: owner only.
  privateFile(file);
  const hex = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} is not a 32-byte hex key`);
  return Buffer.from(hex, 'hex');
}
