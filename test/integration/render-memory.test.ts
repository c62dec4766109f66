// Node keeps nothing of a render once its request is over: thousands of renders on one page,
// each answer about 100 KB, leave Node's heap (after a full collection) where it was. Racing
// each render against a promise that lives as long as its page kept every answer the page gave
// (src/settle.ts).
import { expect } from 'chai';
import type { PageRequest } from '../../src/render/wire.js';
import { heapAfterGc } from '../helpers/gc.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const MB = 1024 * 1024;
const RENDERS = 1000;
const IN_FLIGHT = 2; // the second rides behind the first (pool.ts): both kinds of render
const PAYLOAD_CHARS = 100_000;
/** Growth of the heap allowed after all renders: a fifth of what the answers weigh together
 *  (100 MB, all of it kept with the leak), several times what a warm page's own bookkeeping moves
 *  between two measures. */
const BOUND_BYTES = 20 * MB;

describe('memory: a render leaves nothing behind in Node', function () {
  this.timeout(20 * 60_000); // 1,000 renders: about half a minute here, far longer on a loaded machine

  let s: TestServer;
  before(async () => {
    s = await startTestServer({ poolSize: 1, pageMaxRenders: 1_000_000, renderTimeoutMs: 60_000, acquireTimeoutMs: 600_000 });
  });
  after(async () => s?.stop());

  // a small config whose answer is large: the title's text comes back in the SVG
  const request = (i: number): PageRequest => ({
    config: { type: 'bar', data: { labels: ['a'], datasets: [{ data: [i] }] }, options: { animation: false, plugins: { title: { display: true, text: `${i} ${'x'.repeat(PAYLOAD_CHARS)}` } } } },
    width: 200,
    height: 100,
    format: 'svg',
    backgroundColor: null,
    allowFunctions: false,
    watermark: null,
  });

  async function renderMany(from: number, n: number): Promise<number> {
    let next = from;
    let answered = 0;
    const worker = async () => {
      while (next < from + n) {
        const res = await s.deps.pool.render(request(next++));
        if (!res.ok || String(res.data).length < PAYLOAD_CHARS) throw new Error('render without its payload');
        answered += String(res.data).length;
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    return answered;
  }

  it(`${RENDERS} renders of ${PAYLOAD_CHARS / 1000} KB answers on one page: the heap after GC within ${BOUND_BYTES / MB} MB of where it started`, async () => {
    await renderMany(0, 100); // warm: the page, the pool's tracing and counters, V8's code
    const pagesBefore = s.deps.pool.stats().pagesCreated;
    const before = await heapAfterGc();
    const answered = await renderMany(100, RENDERS);
    const after = await heapAfterGc();
    const grown = after - before;
    expect(answered).to.be.above(RENDERS * PAYLOAD_CHARS);
    // one page did them all: none recycled or crashed (which would let go of what it held)
    expect(s.deps.pool.stats().pagesCreated).to.equal(pagesBefore);
    expect(grown, `heap after GC grew ${(grown / MB).toFixed(1)} MB over ${RENDERS} renders (${(answered / MB).toFixed(0)} MB of answers)`).to.be.below(BOUND_BYTES);
  });
});
