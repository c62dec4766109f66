// Node's heap after a full collection, from inside a test: V8's gc() made callable in this
// process (as --expose-gc would at start; a flag set later only affects contexts made after it,
// so gc is taken from a new one).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/** Bytes in use after full collections (three: weak references and finalizers a first one
 *  finds are released by the next): V8's heap and the memory outside it that its objects hold
 *  (a string of 1 MB or more made from a Buffer lives there, as do Buffers). */
export async function heapAfterGc(): Promise<number> {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  for (let i = 0; i < 3; i++) {
    // a turn of the event loop between collections: pending reactions and timers run and let go
    await new Promise((r) => setImmediate(r));
    gc();
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}
