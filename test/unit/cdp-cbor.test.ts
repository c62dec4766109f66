// CDP's CBOR (src/render/cdpCbor.ts) and the pipe that speaks it (src/render/cdpPipe.ts), on
// byte streams made here: what Chromium writes, split anywhere, decodes to what its JSON pipe
// would have said; the calls made past puppeteer get their own answers and fail when the
// session or the pipe goes. Chromium itself speaks it in every integration test.
import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import { CborError, decodeMessage, encodeMessage, messageLength } from '../../src/render/cdpCbor.js';
import { CdpPipe } from '../../src/render/cdpPipe.js';

/** An envelope around a definite byte string, as crdtp writes one. */
function envelope(inner: number[]): number[] {
  const n = inner.length;
  return [0xd8, 0x18, 0x5a, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff, ...inner];
}
const text = (s: string) => {
  const b = Buffer.from(s, 'utf8');
  return [0x60 | b.length, ...b];
};

describe('CDP CBOR', () => {
  it('round-trips a message: nested maps and arrays, integers, doubles, booleans, null, unicode', () => {
    const msg = {
      id: 7,
      method: 'Runtime.callFunctionOn',
      sessionId: 'ABC',
      params: {
        arguments: [{ value: '{"a":1}' }, { value: null }, { value: 'ü 漢 😀 "quoted"\n' }],
        n: [0, 23, 24, 255, 256, 65535, 65536, 2 ** 31 - 1, 2 ** 31, -1, -24, -25, -(2 ** 31), -(2 ** 31) - 1, 1.5, -0.25, 1e300, Number.MAX_SAFE_INTEGER],
        flags: { yes: true, no: false },
        empty: {},
        none: [],
      },
    };
    expect(decodeMessage(encodeMessage(msg))).to.deep.equal(msg);
  });

  it('leaves out undefined fields, as JSON does', () => {
    expect(decodeMessage(encodeMessage({ id: 1, sessionId: undefined, params: { a: undefined, b: [undefined] } }))).to.deep.equal({ id: 1, params: { b: [null] } });
  });

  it('encodes every map in an envelope whose length is its content', () => {
    const b = encodeMessage({ id: 1, params: {} });
    expect([...b.subarray(0, 3)]).to.deep.equal([0xd8, 0x18, 0x5a]);
    expect(messageLength(b)).to.equal(b.length);
  });

  it('writes the bytes the CBOR spec gives: string heads of every size, ASCII or not, and nested envelopes', () => {
    const body = (b: Buffer) => [...b.subarray(7, b.length - 1)];
    // {"s": <string>}: 0xbf, key "s" (0x61 0x73), the string, 0xff
    const str = (s: string) => body(encodeMessage({ s })).slice(3);
    expect(str('')).to.deep.equal([0x60]);
    expect(str('a'.repeat(23))).to.deep.equal([0x77, ...Buffer.from('a'.repeat(23))]);
    expect(str('a'.repeat(24))).to.deep.equal([0x78, 24, ...Buffer.from('a'.repeat(24))]);
    expect(str('a'.repeat(64))).to.deep.equal([0x78, 64, ...Buffer.from('a'.repeat(64))]);
    expect(str('a'.repeat(256)).slice(0, 3)).to.deep.equal([0x79, 1, 0]);
    expect(str('a'.repeat(65536)).slice(0, 5)).to.deep.equal([0x7a, 0, 1, 0, 0]);
    // UTF-8 bytes, not characters: "aü€" is 1 + 2 + 3 bytes
    expect(str('aü€')).to.deep.equal([0x66, 0x61, 0xc3, 0xbc, 0xe2, 0x82, 0xac]);
    expect(str('ü'.repeat(12))).to.deep.equal([0x78, 24, ...Buffer.from('ü'.repeat(12))]);
    // {"a": {"b": 1}, "c": -1, "d": 1.5}: the inner map in an envelope of its own length (5)
    const b = encodeMessage({ a: { b: 1 }, c: -1, d: 1.5 });
    expect(body(b)).to.deep.equal([
      0xbf,
      0x61, 0x61, 0xd8, 0x18, 0x5a, 0, 0, 0, 5, 0xbf, 0x61, 0x62, 0x01, 0xff,
      0x61, 0x63, 0x20,
      0x61, 0x64, 0xfb, ...Buffer.from([0x3f, 0xf8, 0, 0, 0, 0, 0, 0]),
    ]);
    expect(b.readUInt32BE(3)).to.equal(b.length - 7);
  });

  it("decodes Chromium's UTF-16 strings, protocol binary as base64, and definite-length maps and arrays", () => {
    const utf16 = Buffer.from('ünï 漢', 'utf16le');
    const bytes = [1, 2, 250, 251];
    const inner = [
      0xbf,
      ...text('s'), 0x40 | utf16.length, ...utf16,
      ...text('data'), 0xd6, 0x40 | bytes.length, ...bytes,
      ...text('m'), 0xa1, ...text('k'), 0x82, 0x01, 0x38, 0x63,
      ...text('f'), 0xfa, 0x3f, 0xc0, 0x00, 0x00,
      0xff,
    ];
    expect(decodeMessage(Buffer.from(envelope(inner)))).to.deep.equal({ s: 'ünï 漢', data: Buffer.from(bytes).toString('base64'), m: { k: [1, -100] }, f: 1.5 });
  });

  it('keeps a key named __proto__ as data: no prototype is set', () => {
    const m = decodeMessage(Buffer.from(envelope([0xbf, ...text('__proto__'), 0xbf, ...text('polluted'), 0xf5, 0xff, 0xff])));
    expect(Object.getPrototypeOf(m)).to.equal(Object.prototype);
    expect(Object.keys(m)).to.deep.equal(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('refuses bytes that are not a message: truncated, a wrong envelope length, an odd UTF-16 length, an unknown tag, trailing bytes', () => {
    const good = encodeMessage({ id: 1, method: 'x' });
    expect(() => decodeMessage(good.subarray(0, good.length - 2))).to.throw(CborError);
    const wrong = Buffer.from(envelope([0xbf, ...text('a'), 0x01, 0xff]));
    wrong[6]! += 1;
    expect(() => decodeMessage(Buffer.concat([wrong, Buffer.from([0])]))).to.throw(CborError);
    expect(() => decodeMessage(Buffer.from(envelope([0xbf, ...text('a'), 0x43, 1, 2, 3, 0xff])))).to.throw(CborError, /odd/);
    expect(() => decodeMessage(Buffer.from(envelope([0xbf, ...text('a'), 0xc1, 0x01, 0xff])))).to.throw(CborError, /tag 1/);
    expect(() => decodeMessage(Buffer.concat([good, Buffer.from([0xf6])]))).to.throw(CborError, /after/);
    expect(() => messageLength(Buffer.from('{"id":1}\0'))).to.throw(CborError, /envelope/);
  });

  it('tells the length of a message from its first 7 bytes, 0 before that', () => {
    const b = encodeMessage({ id: 1, result: { value: 'x'.repeat(70000) } });
    expect(messageLength(b.subarray(0, 6))).to.equal(0);
    expect(messageLength(b.subarray(0, 7))).to.equal(b.length);
  });
});

describe('CDP pipe', () => {
  function pipe() {
    const toBrowser = new PassThrough();
    const fromBrowser = new PassThrough();
    const p = new CdpPipe(toBrowser, fromBrowser);
    const written: Array<Record<string, unknown>> = [];
    toBrowser.on('data', (b: Buffer) => written.push(decodeMessage(b)));
    const seen: string[] = [];
    p.onmessage = (m) => seen.push(m);
    let closes = 0;
    p.onclose = () => closes++;
    return { p, fromBrowser, written, seen, closes: () => closes };
  }
  const tick = () => new Promise((r) => setImmediate(r));
  /** The error a promise rejects with (a promise that resolves fails the test). */
  const rejection = (x: Promise<unknown>): Promise<Error> => x.then(() => { throw new Error('resolved'); }, (e: Error) => e);

  it("translates puppeteer's JSON to CBOR and Chromium's CBOR to JSON, whatever the reads' boundaries", async () => {
    const { p, fromBrowser, written, seen } = pipe();
    p.send(JSON.stringify({ method: 'Target.getBrowserContexts', id: 1 }));
    await tick();
    expect(written).to.deep.equal([{ method: 'Target.getBrowserContexts', id: 1 }]);
    const a = encodeMessage({ id: 1, result: { browserContextIds: [] } });
    const b = encodeMessage({ method: 'Target.targetCreated', params: { targetInfo: { title: 'ü', url: 'about:blank' } } });
    const all = Buffer.concat([a, b]);
    // one byte at a time, then both in one read
    for (let i = 0; i < all.length; i++) fromBrowser.write(all.subarray(i, i + 1));
    fromBrowser.write(all);
    await tick();
    expect(seen.map((m) => JSON.parse(m))).to.deep.equal([
      { id: 1, result: { browserContextIds: [] } },
      { method: 'Target.targetCreated', params: { targetInfo: { title: 'ü', url: 'about:blank' } } },
      { id: 1, result: { browserContextIds: [] } },
      { method: 'Target.targetCreated', params: { targetInfo: { title: 'ü', url: 'about:blank' } } },
    ]);
  });

  it('answers its own calls itself: their results and errors never reach puppeteer', async () => {
    const { p, fromBrowser, written, seen } = pipe();
    const ok = p.call('S1', 'Runtime.callFunctionOn', { objectId: 'o' });
    const bad = p.call('S1', 'Runtime.callFunctionOn', { objectId: 'gone' });
    await tick();
    expect(written.map((w) => [w.method, w.sessionId])).to.deep.equal([['Runtime.callFunctionOn', 'S1'], ['Runtime.callFunctionOn', 'S1']]);
    const [id1, id2] = written.map((w) => w.id as number);
    expect(id1).to.be.at.least(2 ** 30);
    expect(id2).to.equal(id1! + 1);
    fromBrowser.write(encodeMessage({ id: id2, error: { code: -32000, message: 'Cannot find context' }, sessionId: 'S1' }));
    fromBrowser.write(encodeMessage({ id: id1, result: { result: { type: 'string', value: 'x'.repeat(100000) } }, sessionId: 'S1' }));
    expect(((await ok).result as { value: string }).value).to.have.length(100000);
    expect((await rejection(bad)).message).to.match(/Cannot find context/);
    expect(seen).to.deep.equal([]);
  });

  it("fails the calls of a session that detaches (and passes the event on), then all of them when the pipe closes, once", async () => {
    const { p, fromBrowser, seen, closes } = pipe();
    const a = p.call('S1', 'Runtime.callFunctionOn', {});
    const b = p.call('S2', 'Runtime.callFunctionOn', {});
    fromBrowser.write(encodeMessage({ method: 'Target.detachedFromTarget', params: { sessionId: 'S1' } }));
    expect((await rejection(a)).message).to.match(/detached/);
    expect(seen).to.have.length(1);
    fromBrowser.end();
    fromBrowser.destroy();
    expect((await rejection(b)).message).to.match(/closed/);
    expect(closes()).to.equal(1);
    expect((await rejection(p.call('S2', 'Runtime.evaluate', {}))).message).to.match(/closed/);
    p.close();
    expect(closes()).to.equal(1);
  });

  it('closes on bytes that are not CDP', async () => {
    const { p, fromBrowser, closes } = pipe();
    const a = p.call('S1', 'Runtime.evaluate', {});
    fromBrowser.write(Buffer.from('{"id":1,"result":{}}\0'));
    expect(await rejection(a)).to.be.an('error');
    expect(closes()).to.equal(1);
  });
});
