// LOG_FORMAT=pretty: the JSON lines pino writes (already redacted), re-laid out one readable line
// each, e.g. "12:00:01.234 POST /v1/chart 200 12.3 ms 5f2c9a1e-..." for a request.
import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, shown in their own places (or not at all). */
const FRAME = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname']);

export function prettyStream(out: NodeJS.WritableStream): Writable {
  let partial = '';
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      const text = lines.filter((l) => l !== '').map(prettyLine).join('');
      if (text) out.write(text, () => done());
      else done();
    },
    final(done) {
      if (partial) out.write(prettyLine(partial));
      done();
    },
  });
}

/** key=value; a nested object as one key.sub=value each, so a readable line holds no JSON object. */
function field(key: string, v: unknown): string[] {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length) return entries.flatMap(([k, x]) => field(`${key}.${k}`, x));
  }
  return [`${key}=${typeof v === 'string' ? v : JSON.stringify(v)}`];
}

/** One JSON log line as text ending in a newline; a line that is not JSON passes unchanged. */
export function prettyLine(json: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json + '\n';
  }
  const time = typeof o.time === 'string' ? o.time.slice(11, 23) : '';
  const level = LEVELS[o.level as number] ?? String(o.level);
  if (o.msg === 'request' && typeof o.method === 'string') {
    const flag = (o.status as number) >= 500 ? ' ERROR' : '';
    return `${time} ${o.method} ${String(o.url)} ${String(o.status)} ${String(o.ms)} ms ${String(o.requestId)}${flag}\n`;
  }
  const rest = Object.entries(o)
    .filter(([k]) => !FRAME.has(k) && k !== 'err')
    .flatMap(([k, v]) => field(k, v));
  let line = `${time} ${level.padEnd(5)} ${String(o.msg ?? '')}${rest.length ? '  ' + rest.join(' ') : ''}\n`;
  const err = o.err as { stack?: unknown; message?: unknown } | undefined;
  if (err && typeof err === 'object') line += `  ${String(err.stack ?? err.message)}\n`.replace(/\n(?!$)/g, '\n  ');
  return line;
}
