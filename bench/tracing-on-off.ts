// A render's latency with tracing off and on (exporting to a local OTLP receiver that accepts
// and drops): 300 sequential POST /v1/chart of a small bar chart, alternating servers in rounds
// so machine load hits both alike. `node --import tsx bench/tracing-on-off.ts`
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BAR, post, startTestServer, type TestServer } from '../test/helpers/server.js';

const sink = createServer((req, res) => req.resume().on('end', () => res.end('{}')));
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
const off = await startTestServer({ poolSize: 1 });
const on = await startTestServer({ poolSize: 1, otel: { tracesUrl: `${endpoint}/v1/traces`, headers: {}, serviceName: 'bench', exportDelayMs: 1000 } });

async function round(s: TestServer, key: string, n: number, into: number[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await post(s.url, '/v1/chart', { chart: BAR, width: 300, height: 200 }, { 'x-api-key': key });
    await res.arrayBuffer();
    into.push(performance.now() - t0);
  }
}
const keyOff = (await off.account('enterprise')).api_key;
const keyOn = (await on.account('enterprise')).api_key;
const tOff: number[] = [];
const tOn: number[] = [];
await round(off, keyOff, 20, []);
await round(on, keyOn, 20, []);
for (let r = 0; r < 10; r++) {
  await round(off, keyOff, 30, tOff);
  await round(on, keyOn, 30, tOn);
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const p90 = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length * 0.9)]!;
console.log(`tracing off: median ${med(tOff).toFixed(2)} ms, p90 ${p90(tOff).toFixed(2)} ms (n=${tOff.length})`);
console.log(`tracing on:  median ${med(tOn).toFixed(2)} ms, p90 ${p90(tOn).toFixed(2)} ms (n=${tOn.length})`);
await off.stop();
await on.stop();
sink.close();
