// The admission queue in front of the page pool: fair order, wait estimates, early refusal,
// displacement of the heaviest owner, deadlines. No Chromium.
import { expect } from 'chai';
import { rejection } from '../helpers/rejection.js';
import { AdmissionGate, AdmissionRefused, Ewma, estimateWaitMs } from '../../src/render/admission.js';
import { FairQueue } from '../../src/render/fairQueue.js';

function drain<T>(q: FairQueue<T>): T[] {
  const out: T[] = [];
  for (let x = q.shift(); x !== undefined; x = q.shift()) out.push(x);
  return out;
}

describe('FairQueue', () => {
  it('serves owners round-robin and each owner FIFO', () => {
    const q = new FairQueue<string>();
    for (let i = 1; i <= 5; i++) q.push('heavy', `h${i}`);
    q.push('light', 'l1');
    q.push('light', 'l2');
    q.push('other', 'o1');
    expect(q.size).to.equal(8);
    expect(['heavy', 'light', 'other'].map((o) => q.sizeOf(o))).to.deep.equal([5, 2, 1]);
    expect(drain(q)).to.deep.equal(['h1', 'l1', 'o1', 'h2', 'l2', 'h3', 'h4', 'h5']);
    expect(q.size).to.equal(0);
    expect(q.largest(), 'no owner left queued').to.equal(undefined);
    expect(q.shift()).to.equal(undefined);
  });

  it('a newcomer is served within one round, however long the heavy line is', () => {
    const q = new FairQueue<string>();
    for (let i = 1; i <= 100; i++) q.push('heavy', `h${i}`);
    expect(q.shift()).to.equal('h1');
    q.push('light', 'l1');
    // at most one more item of the heavy owner before the newcomer
    const next = [q.shift(), q.shift()];
    expect(next).to.include('l1');
    expect(q.sizeOf('light')).to.equal(0);
    expect(q.sizeOf('heavy')).to.be.oneOf([98, 99]);
  });

  it('remove() takes a waiter out wherever it is and keeps the rotation consistent', () => {
    const q = new FairQueue<string>();
    q.push('a', 'a1');
    q.push('b', 'b1');
    q.push('c', 'c1');
    q.push('a', 'a2');
    expect(q.remove('b', 'b1')).to.equal(true);
    expect(q.remove('b', 'b1')).to.equal(false);
    expect(q.remove('zzz', 'x')).to.equal(false);
    expect(['a', 'b', 'c'].map((o) => q.sizeOf(o))).to.deep.equal([2, 0, 1]);
    expect(drain(q)).to.deep.equal(['a1', 'c1', 'a2']);
  });

  it('ahead() counts what would be served before one more item of an owner', () => {
    const q = new FairQueue<number>();
    for (let i = 0; i < 30; i++) q.push('heavy', i);
    q.push('mid', 1);
    q.push('mid', 2);
    expect(q.ahead('light')).to.equal(2); // one heavy + one mid, then light's turn
    expect(q.ahead('mid')).to.equal(2 + 3); // its own two, then up to three of heavy
    expect(q.ahead('heavy')).to.equal(30 + 2);
    expect(new FairQueue<number>().ahead('x')).to.equal(0);
  });

  it('largest() and popNewest() pick the newest item of the heaviest owner', () => {
    const q = new FairQueue<string>();
    q.push('a', 'a1');
    q.push('b', 'b1');
    q.push('b', 'b2');
    q.push('b', 'b3');
    expect(q.largest()).to.deep.equal({ owner: 'b', size: 3 });
    expect(q.popNewest('b')).to.equal('b3');
    expect(q.popNewest('nobody')).to.equal(undefined);
    expect(q.size).to.equal(3);
    expect(drain(q)).to.deep.equal(['a1', 'b1', 'b2']);
    expect(q.largest()).to.equal(undefined);
  });

  it('stays consistent under a random mix of operations (model check)', () => {
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const q = new FairQueue<number>();
    const model = new Map<string, number[]>();
    let id = 0;
    for (let step = 0; step < 5000; step++) {
      const op = rnd(4);
      const owner = `o${rnd(5)}`;
      if (op <= 1) {
        q.push(owner, id);
        model.set(owner, [...(model.get(owner) ?? []), id]);
        id++;
      } else if (op === 2) {
        const x = q.shift();
        if (x === undefined) {
          expect([...model.values()].every((l) => l.length === 0)).to.equal(true);
        } else {
          // FIFO within the owner it came from
          const from = [...model.entries()].find(([, l]) => l[0] === x);
          expect(from, `item ${x} was the head of its owner's line`).to.not.equal(undefined);
          from![1].shift();
        }
      } else {
        const l = model.get(owner) ?? [];
        if (l.length) {
          const victim = l[rnd(l.length)]!;
          expect(q.remove(owner, victim)).to.equal(true);
          l.splice(l.indexOf(victim), 1);
        }
      }
      const total = [...model.values()].reduce((n, l) => n + l.length, 0);
      expect(q.size).to.equal(total);
      for (const [o, l] of model) expect(q.sizeOf(o)).to.equal(l.length);
    }
    // every owner still queued is in the rotation: draining serves exactly what is left
    const left = [...model.values()].reduce((n, l) => n + l.length, 0);
    expect(drain(q)).to.have.length(left);
    expect(q.largest()).to.equal(undefined);
  });
});

describe('wait estimate', () => {
  it('grows with the line and the hold time, shrinks with more pages', () => {
    expect(estimateWaitMs(0, 2, 100)).to.equal(50);
    expect(estimateWaitMs(9, 2, 100)).to.equal(500);
    expect(estimateWaitMs(9, 1, 100)).to.equal(1000);
    expect(estimateWaitMs(3, 0, 100)).to.equal(400);
  });

  it('Ewma follows recent samples and ignores nonsense', () => {
    const e = new Ewma(100, 0.5);
    e.add(200);
    expect(e.value).to.equal(150);
    e.add(NaN);
    e.add(-5);
    expect(e.value).to.equal(150);
    for (let i = 0; i < 40; i++) e.add(10);
    expect(e.value).to.be.closeTo(10, 0.01);
  });
});

describe('AdmissionGate', () => {
  const refusal = async (p: Promise<unknown> | null): Promise<AdmissionRefused> => {
    expect(p).to.not.equal(null);
    return rejection(p!, AdmissionRefused);
  };

  it('tryEnter takes a slot only when one is free and nobody waits', async () => {
    const g = new AdmissionGate({ slots: 1, maxQueue: 10, maxWaitMs: 1000, initialHoldMs: 10 });
    expect(g.tryEnter()).to.equal(true);
    expect(g.tryEnter()).to.equal(false);
    const waiting = g.enter('a');
    expect(waiting).to.be.instanceOf(Promise);
    g.leave();
    await waiting;
    // the slot went to the waiter, not to background work
    expect(g.tryEnter()).to.equal(false);
    g.leave();
    expect(g.tryEnter()).to.equal(true);
  });

  it('handOff serves the next waiter in turn with what it is handed instead of a slot, only when its tag is accepted', async () => {
    const g = new AdmissionGate({ slots: 1, maxQueue: 10, maxWaitMs: 1000, initialHoldMs: 10 });
    expect(g.full()).to.equal(false);
    expect(g.handOff('ride', () => true)).to.equal(false); // nobody waits
    expect(g.enter('a')).to.equal(null);
    expect(g.full()).to.equal(true);
    const a = g.enter('a', undefined, 4)!;
    const b = g.enter('b', undefined, 3)!;
    expect(g.full()).to.equal(false); // somebody waits: a newcomer would queue behind them
    // the next in turn (a, tag 4) is not accepted: nobody is skipped over to reach b
    expect(g.handOff('ride', (tag) => tag === 3)).to.equal(false);
    expect(g.stats().waiting).to.equal(2);
    expect(g.handOff('ride on 4', (tag) => tag === 4)).to.equal(true);
    expect(await a).to.equal('ride on 4');
    // a holds no slot: the slot's holder leaving serves b with a slot (undefined)
    g.leave(10);
    expect(await b).to.equal(undefined);
    expect(g.tryEnter()).to.equal(false);
    g.leave(10);
    expect(g.tryEnter()).to.equal(true);
  });

  it('grants free slots at once without a promise, then queues', async () => {
    const g = new AdmissionGate({ slots: 2, maxQueue: 10, maxWaitMs: 1000, initialHoldMs: 10 });
    expect(g.enter('a')).to.equal(null);
    expect(g.enter('a')).to.equal(null);
    const third = g.enter('a');
    expect(third).to.be.instanceOf(Promise);
    expect(g.stats().waiting).to.equal(1);
    g.leave(10);
    await third;
    expect(g.stats().waiting).to.equal(0);
    g.leave(10);
    g.leave(10);
    // both slots free again: the next two enter at once
    expect(g.enter('b')).to.equal(null);
    expect(g.enter('b')).to.equal(null);
  });

  it('hands freed slots round-robin across owners', async () => {
    const g = new AdmissionGate({ slots: 1, maxQueue: 50, maxWaitMs: 60000, initialHoldMs: 1 });
    expect(g.enter('x')).to.equal(null);
    const order: string[] = [];
    const waits: Promise<void>[] = [];
    for (let i = 0; i < 6; i++) waits.push(g.enter('heavy')!.then(() => void order.push(`h${i}`)));
    waits.push(g.enter('light')!.then(() => void order.push('l0')));
    waits.push(g.enter('light')!.then(() => void order.push('l1')));
    for (let i = 0; i < 8; i++) {
      g.leave(1);
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(waits);
    expect(order.indexOf('l0')).to.be.lessThan(3);
    expect(order.indexOf('l1')).to.be.lessThan(5);
    expect(order.filter((x) => x.startsWith('h'))).to.deep.equal(['h0', 'h1', 'h2', 'h3', 'h4', 'h5']);
  });

  it('refuses at once when the estimated wait exceeds the deadline, with a Retry-After estimate', async () => {
    const g = new AdmissionGate({ slots: 1, maxQueue: 100, maxWaitMs: 1000, initialHoldMs: 300 });
    expect(g.enter('heavy')).to.equal(null);
    // estimated waits 300, 600, 900 ms: queued
    const queued = [g.enter('heavy'), g.enter('heavy'), g.enter('heavy')];
    queued.forEach((p) => expect(p).to.be.instanceOf(Promise));
    queued.forEach((p) => p?.catch(() => {}));
    const t = Date.now();
    const r2 = await refusal(g.enter('heavy')); // 1200 ms > 1000 ms: refused now
    expect(r2.reason).to.equal('overloaded');
    expect(r2.retryAfterMs).to.be.greaterThan(0);
    expect(Date.now() - t).to.be.lessThan(200);
    expect(g.stats().refusedEarly).to.equal(1);
    // another owner is still admitted: its estimated wait is one turn, not the heavy line
    const light = g.enter('light');
    expect(light).to.be.instanceOf(Promise);
    g.close();
    await refusal(light);
  });

  it('a full queue displaces the newest request of the heaviest owner for a lighter one', async () => {
    const g = new AdmissionGate({ slots: 1, maxQueue: 3, maxWaitMs: 60000, initialHoldMs: 1 });
    expect(g.enter('heavy')).to.equal(null);
    const h = [g.enter('heavy')!, g.enter('heavy')!, g.enter('heavy')!];
    const settled = h.map((p) => p.then(() => 'ok', (e: AdmissionRefused) => e.reason));
    // the heavy owner itself cannot grow the full queue
    expect((await refusal(g.enter('heavy'))).reason).to.equal('queue_full');
    const light = g.enter('light')!;
    expect(await settled[2]).to.equal('displaced');
    expect(g.stats().displaced).to.equal(1);
    g.leave(1);
    g.leave(1);
    g.leave(1);
    await light;
    expect(await settled[0]).to.equal('ok');
    expect(await settled[1]).to.equal('ok');
  });

  it('with MAX_QUEUE 0 nobody waits', async () => {
    const g = new AdmissionGate({ slots: 1, maxQueue: 0, maxWaitMs: 1000 });
    expect(g.enter('a')).to.equal(null);
    expect((await refusal(g.enter('b'))).reason).to.equal('queue_full');
  });

  it('a waiter whose deadline passes is refused and leaves the queue', async () => {
    const g = new AdmissionGate({ slots: 1, maxQueue: 10, maxWaitMs: 80, initialHoldMs: 1 });
    expect(g.enter('a')).to.equal(null);
    const t = Date.now();
    const r = await refusal(g.enter('b'));
    expect(r.reason).to.equal('timeout');
    expect(Date.now() - t).to.be.within(60, 1000);
    expect(g.stats().waiting).to.equal(0);
    expect(g.stats().timedOut).to.equal(1);
    // the slot still held by 'a' goes back to the free count, not to the departed waiter
    g.leave(1);
    expect(g.enter('c')).to.equal(null);
  });

  it('learns the hold time from leave()', () => {
    const g = new AdmissionGate({ slots: 1, maxQueue: 10, maxWaitMs: 1000, initialHoldMs: 50 });
    for (let i = 0; i < 30; i++) {
      expect(g.enter('a')).to.equal(null);
      g.leave(400);
    }
    expect(g.stats().avgHoldMs).to.be.closeTo(400, 5);
    g.leave(); // no sample
    expect(g.stats().avgHoldMs).to.be.closeTo(400, 5);
  });

  it('a waiter whose signal aborts leaves the queue at once and takes no slot', async () => {
    const g = new AdmissionGate({ slots: 1, maxQueue: 10, maxWaitMs: 60000 });
    expect(g.enter('a')).to.equal(null);
    const gone = new AbortController();
    const stays = new AbortController();
    const p1 = g.enter('a', gone.signal)!;
    const p2 = g.enter('b', stays.signal)!;
    expect(g.stats().waiting).to.equal(2);
    gone.abort();
    const err = await p1.then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(AdmissionRefused);
    expect((err as AdmissionRefused).reason).to.equal('aborted');
    expect(g.stats()).to.include({ waiting: 1, abandoned: 1, timedOut: 0 });
    // the slot goes to the one still waiting, not to the one that left
    g.leave();
    await p2;
    expect(g.stats().waiting).to.equal(0);
    // an abort after being served changes nothing
    stays.abort();
    expect(g.stats().abandoned).to.equal(1);
  });

  it('a signal already aborted is refused without taking a free slot', async () => {
    const g = new AdmissionGate({ slots: 1, maxQueue: 10, maxWaitMs: 60000 });
    const err = await g.enter('a', AbortSignal.abort())!.then(() => null, (e: unknown) => e);
    expect((err as AdmissionRefused).reason).to.equal('aborted');
    // the slot is still free
    expect(g.enter('b')).to.equal(null);
    expect(g.stats().abandoned).to.equal(1);
  });
});
