// Shared work in flight: joined by identical callers, abandoned only when every caller left.
import { expect } from 'chai';
import { Flights } from '../../src/services/flights.js';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('Flights', () => {
  it('callers of the same key share one start; the key is free once the work settled', async () => {
    const f = new Flights<number>();
    const d = deferred<number>();
    let starts = 0;
    const start = () => {
      starts++;
      return d.promise;
    };
    const a = f.join('k', start);
    const b = f.join('k', start);
    expect(f.has('k')).to.equal(true);
    d.resolve(7);
    expect(await a).to.deep.equal({ value: 7, joined: false });
    expect(await b).to.deep.equal({ value: 7, joined: true });
    expect(starts).to.equal(1);
    expect(f.has('k')).to.equal(false);
  });

  it('the work is aborted only when every caller left, and a new caller then starts afresh', async () => {
    const f = new Flights<string>();
    let seen: AbortSignal | undefined;
    const start = (signal: AbortSignal) => {
      seen = signal;
      return new Promise<string>((resolve, reject) => signal.addEventListener('abort', () => reject(new Error('abandoned'))));
    };
    const c1 = new AbortController();
    const c2 = new AbortController();
    const a = f.join('k', start, c1.signal).catch((e: Error) => e.message);
    const b = f.join('k', start, c2.signal).catch((e: Error) => e.message);
    c1.abort();
    expect(seen!.aborted).to.equal(false);
    c2.abort();
    expect(seen!.aborted).to.equal(true);
    expect(f.has('k')).to.equal(false);
    expect(await a).to.equal('abandoned');
    expect(await b).to.equal('abandoned');
    const fresh = await f.join('k', async () => 'new');
    expect(fresh).to.deep.equal({ value: 'new', joined: false });
  });

  it('a caller without a signal keeps the work alive; one whose signal already aborted never counts', async () => {
    const f = new Flights<string>();
    const d = deferred<string>();
    let signal: AbortSignal | undefined;
    const start = (s: AbortSignal) => {
      signal = s;
      return d.promise;
    };
    const keeper = f.join('k', start);
    const gone = new AbortController();
    gone.abort();
    const late = f.join('k', start, gone.signal);
    expect(signal!.aborted).to.equal(false);
    d.resolve('done');
    expect((await keeper).value).to.equal('done');
    expect((await late).value).to.equal('done');
  });
});
