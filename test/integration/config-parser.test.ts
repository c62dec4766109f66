// Large JSON5 config texts are parsed in a worker thread: the event loop keeps serving while a
// 2 MB text is parsed (shown by the order of events, not by timing), JSON is left to the caller,
// bad text is reported as such, and a parse past its deadline stops its worker, not the server.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import JSON5 from 'json5';
import { AppError } from '../../src/errors.js';
import { ConfigTextParser } from '../../src/services/configTextParser.js';
import type { ParsedConfigText } from '../../src/chart/quickchart.js';

/** A JSON5 object literal of about `bytes` characters: unquoted keys, single quotes, trailing commas. */
export function bigJson5(bytes: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes - 200; i++) {
    const p = `{x:${i},y:${(i * 7919) % 1000},note:'point ${i}',},`;
    parts.push(p);
    length += p.length;
  }
  return `{type:'line',data:{datasets:[{label:'big',data:[${parts.join('')}],},],},options:{animation:false,},}`;
}

describe('ConfigTextParser: JSON5 off the event loop', function () {
  this.timeout(120_000);
  let parser: ConfigTextParser;
  let health: Server;
  let healthUrl: string;

  /** Called by the health server when a request has arrived (its answer is sent on the next turn of the loop). */
  let arrived: (() => void) | null = null;
  let order: string[] = [];

  before(async () => {
    health = createServer((_req, res) => {
      arrived?.();
      // answered on the loop's next turn: only a loop that is free gets there
      setImmediate(() => {
        order.push('health');
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => health.listen(0, '127.0.0.1', resolve));
    healthUrl = `http://127.0.0.1:${(health.address() as AddressInfo).port}/health`;
  });
  after(async () => {
    await parser?.close();
    await new Promise<void>((resolve) => health.close(() => resolve()));
  });
  beforeEach(() => {
    parser = new ConfigTextParser();
  });
  afterEach(() => parser.close());

  /**
   * A health request reaches the server, whose answer waits for the next turn of the event loop;
   * then `parse` starts. Returns the order in which the answer and the parse finished: a parse on
   * the event loop holds the loop until it ends ('parsed' first), one in a worker does not.
   */
  async function race(parse: () => Promise<unknown>): Promise<string[]> {
    order = [];
    const here = new Promise<void>((resolve) => (arrived = resolve));
    const answered = fetch(healthUrl).then(async (res) => expect(await res.text()).to.equal('ok'));
    await here;
    arrived = null;
    const parsing = parse().then(() => order.push('parsed'));
    await Promise.all([parsing, answered]);
    return order;
  }

  it('a 2 MB JSON5 config: a concurrent health request is answered before its parse finishes', async () => {
    const text = bigJson5(2 * 1024 * 1024);
    expect(text.length).to.be.within(2_000_000, 2 * 1024 * 1024);
    let parsed: ParsedConfigText | undefined;
    expect(await race(async () => (parsed = await parser.parse(text)))).to.deep.equal(['health', 'parsed']);
    expect(parsed!.kind).to.equal('data');
    expect(parsed!.text).to.equal(text);
    const value = (parsed as { value: { type: string; data: { datasets: Array<{ data: Array<{ x: number; note: string }> }> } } }).value;
    expect(value.type).to.equal('line');
    const points = value.data.datasets[0]!.data;
    expect(points.at(-1)).to.include({ x: points.length - 1, note: `point ${points.length - 1}` });
  });

  it('the same race with the parse on the event loop ends the other way (the race can tell them apart)', async () => {
    const text = bigJson5(2 * 1024 * 1024);
    expect(await race(async () => JSON5.parse(text))).to.deep.equal(['parsed', 'health']);
  });

  it('JSON is answered as JSON (the caller parses it natively), bad text as invalid', async () => {
    expect(await parser.parse('{"type":"bar","data":{}}')).to.deep.equal({ text: '{"type":"bar","data":{}}', kind: 'json' });
    expect(await parser.parse("{type:'bar', data: ")).to.deep.equal({ text: "{type:'bar', data: ", kind: 'invalid' });
    expect(await parser.parse('{type: "bar", options: {x: () => 1}}')).to.include({ kind: 'invalid' });
    // JSON5's own values survive the trip back
    const special = (await parser.parse('{a: NaN, b: Infinity, c: -0, "__proto__": {x: 1}}')) as { kind: string; value: Record<string, unknown> };
    expect(special.kind).to.equal('data');
    expect(special.value.a).to.be.NaN;
    expect(special.value.b).to.equal(Infinity);
    expect(Object.hasOwn(special.value, '__proto__')).to.equal(true);
    expect(({} as Record<string, unknown>).x).to.equal(undefined);
  });

  it('starts its worker on first use, keeps it warm, and queues past its workers', async () => {
    expect(parser.workerCount).to.equal(0);
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => parser.parse(`{n: ${i}}`)));
    expect(answers.map((a) => (a as { value: { n: number } }).value.n)).to.deep.equal([0, 1, 2, 3, 4]);
    expect(parser.workerCount).to.equal(1);
  });

  it('a full queue is 503 with Retry-After; a closed parser refuses', async () => {
    const small = new ConfigTextParser({ maxQueue: 1 });
    try {
      const first = small.parse('{a: 1}'); // taken by the worker at once
      const second = small.parse('{a: 2}'); // waits
      const third = await small.parse('{a: 3}').then(() => null, (err: unknown) => err);
      expect(third).to.be.instanceOf(AppError);
      expect((third as AppError).status).to.equal(503);
      await Promise.all([first, second]);
    } finally {
      await small.close();
    }
    const refused = await small.parse('{a: 1}').then(() => null, (err: unknown) => err);
    expect((refused as AppError).status).to.equal(503);
  });

  it('a parse past its deadline is 400 and its worker replaced; the next parse works', async () => {
    // 1 ms: a cold worker cannot even have loaded json5 by then
    const slow = new ConfigTextParser({ parseTimeoutMs: 1 });
    try {
      const err = await slow.parse(bigJson5(64 * 1024)).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(AppError);
      expect(err as AppError).to.include({ status: 400, code: 'invalid_input' });
      expect(slow.workerCount).to.equal(0);
    } finally {
      await slow.close();
    }
    expect(await parser.parse('{ok: true}')).to.deep.include({ kind: 'data', value: { ok: true } });
  });
});
