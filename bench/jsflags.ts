// A Chromium for experiments with V8's flags in the renderers: a wrapper script that starts the
// configured Chromium with `flags` added to the harness's own --js-flags (Chromium keeps the last
// --js-flags it is given, so the harness's are repeated with the extra ones). Give its path as
// CHROMIUM_PATH. Used by bench/idle-gap.ts, bench/gc-churn.ts and ab.ts runs (AB_ENV_B).
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `<dir>/chromium` (dir made readable: Chromium may run as another user); `log`
 *  receives Chromium's output (V8's traces) when given. Returns the wrapper's path. */
export function jsFlagsWrapper(dir: string, chromiumPath: string, flags: string, log?: string): string {
  chmodSync(dir, 0o755);
  const wrapper = join(dir, 'chromium');
  const out = log ? ` >>'${log}' 2>/dev/null` : '';
  writeFileSync(
    wrapper,
    `#!/bin/sh\nflags=--js-flags=\nfor a do case "$a" in --js-flags=*) flags="$a";; esac; done\nexec '${chromiumPath}' "$@" "$flags ${flags}"${out}\n`,
    { mode: 0o755 },
  );
  return wrapper;
}

// `node --import tsx bench/jsflags.ts <dir> <flags...>`: writes the wrapper for an ab.ts run and
// prints its path, e.g. AB_ENV_B=CHROMIUM_PATH=$(node --import tsx bench/jsflags.ts /tmp/w --no-maglev)
if (process.argv[1]?.endsWith('jsflags.ts')) {
  const [dir, ...flags] = process.argv.slice(2);
  if (!dir) throw new Error('usage: bench/jsflags.ts <dir> <flags...>');
  const { loadConfig } = await import('../src/config.js');
  console.log(jsFlagsWrapper(dir, loadConfig({ ...process.env, DATA_DIR: dir }).chromiumPath, flags.join(' ')));
}
