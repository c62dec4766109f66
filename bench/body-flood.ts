// Node's CPU under a flood of unauthenticated 2 MB JSON bodies (issue 25): two clients in a loop
// for N seconds, each POSTing a whole 2 MB body to a path that does not exist, then to a route
// behind a key without one, reading the answer, on a new connection each time. The server's
// CPU time is read from /proc/<pid>/stat before and after.
//   node --import tsx bench/body-flood.ts <server url> <server pid> [seconds=10] [clients=2]
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

const [url, pidArg, secondsArg, clientsArg] = process.argv.slice(2);
if (!url || !pidArg) {
  console.error('usage: bench/body-flood.ts <server url> <server pid> [seconds] [clients]');
  process.exit(2);
}
const seconds = Number(secondsArg ?? 10);
const clients = Number(clientsArg ?? 2);
const { hostname, port } = new URL(url);
// valid JSON, so a server that parses it pays for a real parse
const body = Buffer.from(JSON.stringify({ chart: { type: 'line', data: { datasets: [{ data: Array.from({ length: 290_000 }, (_, i) => i % 1000) }] } } }).padEnd(2 * 1024 * 1024, ' '));

function cpuTicks(pid: string): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime, clock ticks
}

/** One request: head and whole body written, the status line read; resolves with the status or an error code. */
function once(path: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(Number(port), hostname);
    let got = '';
    s.on('data', (d) => {
      got += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
      if (m && got.includes('\r\n\r\n')) {
        s.destroy();
        resolve(m[1]!);
      }
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    s.on('close', () => resolve(got ? 'partial' : 'closed'));
    s.on('connect', () => {
      s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
      s.write(body);
    });
  });
}

const answers = new Map<string, number>();
const deadline = Date.now() + seconds * 1000;
const before = cpuTicks(pidArg);
const t0 = performance.now();
await Promise.all(
  Array.from({ length: clients }, async (_, c) => {
    for (let i = 0; Date.now() < deadline; i++) {
      const path = (i + c) % 2 === 0 ? '/v1/no-such-path' : '/v1/chart';
      const status = `${path} ${await once(path)}`;
      answers.set(status, (answers.get(status) ?? 0) + 1);
    }
  }),
);
const wallS = (performance.now() - t0) / 1000;
const cpuS = (cpuTicks(pidArg) - before) / 100; // USER_HZ = 100 on Linux
console.log(JSON.stringify({ seconds: Number(wallS.toFixed(1)), clients, serverCpuS: cpuS, serverCpuPctOfCore: Math.round((100 * cpuS) / wallS), answers: Object.fromEntries(answers) }));
