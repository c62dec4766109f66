// Node's heap limit: what it should be (MAX_HEAP_MB, or a share of the memory the process may
// use), and making it apply. V8 fixes its heap limit when the process starts, from the host's
// memory, never a container's: `chartshot serve` started without --max-old-space-size starts
// itself again once with it (docs/decisions/0036-heap-limit.md).
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { getHeapStatistics } from 'node:v8';

/** Where the memory the process may use was read. */
export type MemorySource = 'cgroup v2 memory.max' | 'cgroup v1 memory.limit_in_bytes' | 'host memory';

export interface HeapLimit {
  /** The old space Node is to run with (--max-old-space-size), MB. */
  readonly mb: number;
  readonly source: 'MAX_HEAP_MB' | MemorySource | 'node --max-old-space-size';
  /** The memory the process may use (Node and Chromium together), MB, and where it was read. */
  readonly memoryMb: number;
  readonly memorySource: MemorySource;
  /** Node was started with --max-old-space-size (the command line or NODE_OPTIONS): `mb` is in effect. */
  readonly applied: boolean;
}

/**
 * The default heap limit for `memoryMb` of memory: a quarter of it, what V8 itself takes of the
 * host's memory, between 256 MB (a JSON body's parse and the renders in flight need that much)
 * and 4096 MB (V8's own ceiling on 64-bit hosts). The other three quarters are Chromium's (its
 * cgroup defaults to at most three quarters of the same memory: config.ts) and Node's memory
 * outside its heap (code, Buffers, the image cache). A server under steady load holds about 45 MB
 * after a full collection (bench/soak.ts): the limit bounds what a leak or a burst may take, it
 * is not what Node uses.
 */
export function defaultHeapMb(memoryMb: number): number {
  return Math.max(256, Math.min(4096, Math.floor(memoryMb / 4)));
}

/** The last --max-old-space-size (or --max_old_space_size) among `args`, MB; null when none. */
export function heapFlagMb(args: readonly string[]): number | null {
  let mb: number | null = null;
  for (let i = 0; i < args.length; i++) {
    const m = /^--max[-_]old[-_]space[-_]size(?:=(\d+))?$/.exec(args[i]!);
    if (!m) continue;
    const value = m[1] ?? args[i + 1];
    if (value !== undefined && /^\d+$/.test(value)) mb = Number(value);
  }
  return mb;
}

/** What /v1/status shows: the limit in effect (V8's own figure) and where it came from. */
export function heapStatus(limit: HeapLimit): { limitMb: number; oldSpaceMb: number | null; source: string; memoryMb: number; memorySource: MemorySource } {
  return {
    // V8's limit: the old space plus the young generation (48 MB at these sizes)
    limitMb: Math.round(getHeapStatistics().heap_size_limit / 1048576),
    oldSpaceMb: limit.applied ? limit.mb : null,
    // started some other way than `chartshot serve` (programmatically, tests): V8 chose
    source: limit.applied ? limit.source : 'node default',
    memoryMb: limit.memoryMb,
    memorySource: limit.memorySource,
  };
}

/** Signals a supervisor sends that the server itself handles; passed on to it. */
const PASSED_ON: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR2'];

/**
 * Runs this command again in a child Node with --max-old-space-size=`mb` (and this one's own
 * flags, e.g. --no-memory-reducer), passing signals on and ending as it ends: the same exit code,
 * or the same signal. The child gets an IPC channel, so it sees this process go even when it is
 * killed outright (stopOnParentExit).
 */
export function runWithHeapLimit(mb: number): Promise<never> {
  return new Promise<never>(() => {
    const child = spawn(process.execPath, [...process.execArgv, `--max-old-space-size=${mb}`, ...process.argv.slice(1)], {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    });
    const pass = (signal: NodeJS.Signals) => () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    const handlers = PASSED_ON.map((signal) => [signal, pass(signal)] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    child.once('error', (err) => {
      process.stderr.write(`chartshot: could not start Node with --max-old-space-size=${mb}: ${err.message}\n`);
      process.exit(1);
    });
    child.once('exit', (code, signal) => {
      if (signal) {
        // end the same way, so a supervisor sees what happened to the server
        for (const [s, handler] of handlers) process.off(s, handler);
        process.kill(process.pid, signal);
        // a signal whose default is not to end the process: the shell's convention instead
        setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 1000).unref();
        return;
      }
      process.exit(code ?? 1);
    });
  });
}

/** In the child of runWithHeapLimit: when the process that started it ends (even by SIGKILL),
 *  its IPC channel closes, and `stop` runs. */
export function stopOnParentExit(stop: () => void): void {
  if (!process.channel) return;
  // the channel alone never keeps the server running
  process.channel.unref();
  process.once('disconnect', stop);
}
