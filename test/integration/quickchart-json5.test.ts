// Key holders' large JavaScript-literal configs on /chart are parsed by JSON5 in a worker thread:
// they draw as their JSON twin does, and bad text gets the same 400 as when parsed inline.
import { expect } from 'chai';
import { post, startTestServer, type Credentials, type TestServer } from '../helpers/server.js';
import { diffRatio, isPng } from '../helpers/images.js';
import { INLINE_JSON5_MAX_CHARS } from '../../src/chart/quickchart.js';

/** A bar chart whose JSON5 text is about `chars` long: the bulk is labels of points nobody draws. */
function barText(chars: number): { text: string; json: object } {
  const notes: string[] = [];
  for (let i = 0, n = 0; n < chars; i++) {
    notes.push(`note ${i}`);
    n += 12 + String(i).length;
  }
  const json = { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 'x', data: [1, 2], backgroundColor: '#36a2eb', notes }] }, options: { animation: false } };
  const text = `{type:'bar',data:{labels:['a','b'],datasets:[{label:'x',data:[1,2],backgroundColor:'#36a2eb',notes:[${notes.map((n) => `'${n}'`).join(',')},],},],},options:{animation:false,},}`;
  return { text, json };
}

describe('/chart: large JSON5 configs are parsed off the event loop', function () {
  this.timeout(120_000);
  let s: TestServer;
  let acct: Credentials;

  before(async () => {
    s = await startTestServer({ poolSize: 1 });
    acct = await s.account('starter');
  });
  after(async () => s?.stop());

  const chart = (c: string) => post(s.url, '/chart', { c, v: '4', devicePixelRatio: 1, width: 300, height: 200 }, { 'x-api-key': acct.api_key });

  it('a 256 KB JSON5 config is parsed in the worker and draws the pixels of its JSON twin', async () => {
    const { text, json } = barText(256 * 1024);
    expect(text.length).to.be.above(INLINE_JSON5_MAX_CHARS);
    expect(s.deps.configParser.workerCount, 'no worker before the first large text').to.equal(0);
    const a = await chart(text);
    expect(a.status, a.headers.get('x-quickchart-error') ?? '').to.equal(200);
    expect(s.deps.configParser.workerCount).to.equal(1);
    const b = await chart(JSON.stringify(json));
    expect(b.status).to.equal(200);
    const [pa, pb] = [Buffer.from(await a.arrayBuffer()), Buffer.from(await b.arrayBuffer())];
    expect(isPng(pa)).to.equal(true);
    expect(diffRatio(pa, pb)).to.equal(0);
  });

  it('bad JSON5 past the inline size gets the same 400 as a small one', async () => {
    const small = await chart("{type:'bar', data: ");
    const large = await chart(`{type:'bar', data: {labels: [${"'x',".repeat(INLINE_JSON5_MAX_CHARS)}`);
    expect(small.status).to.equal(400);
    expect(large.status).to.equal(400);
    expect(large.headers.get('x-quickchart-error')).to.equal(small.headers.get('x-quickchart-error')).and.match(/object literal/);
  });
});
