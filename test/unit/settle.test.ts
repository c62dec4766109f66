// src/settle.ts: a wait with ways out (a deadline, a signal) that leaves nothing behind once it
// is over, where Promise.race leaves its outcome reachable from every promise it raced.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterMs, afterSettled, onAbort, settle, untilSettled, waitAtMost, withDeadline, type WayOut } from '../../src/settle.js';
import { heapAfterGc } from '../helpers/gc.js';

const never = () => new Promise<never>(() => {});
const MB = 1024 * 1024;
/** Half a megabyte of text of its own ('x'.repeat would share its halves: a few bytes). */
const piece = () => randomBytes(MB / 4).toString('hex');

/** A way out that counts how often it was armed and taken off. */
function counted(): WayOut & { armed: number; off: number } {
  const way = ((fail: (err: unknown) => void) => {
    void fail;
    way.armed++;
    return () => {
      way.off++;
    };
  }) as WayOut & { armed: number; off: number };
  way.armed = 0;
  way.off = 0;
  return way;
}

describe('settle: waiting with ways out', () => {
  it("is the promise's value or error when it settles first, and takes every way out off", async () => {
    const a = counted();
    const b = counted();
    expect(await settle(Promise.resolve(7), a, b)).to.equal(7);
    expect([a.armed, a.off, b.armed, b.off]).to.deep.equal([1, 1, 1, 1]);
    const c = counted();
    const err = await settle(Promise.reject(new Error('boom')), c).catch((e: Error) => e);
    expect((err as Error).message).to.equal('boom');
    expect(c.off).to.equal(1);
  });

  it("is the first way out's error when it fires first; the others are taken off", async () => {
    const other = counted();
    const err = await settle(never(), afterMs(5, () => new Error('late')), other).catch((e: Error) => e);
    expect((err as Error).message).to.equal('late');
    expect(other.off).to.equal(1);
    expect(await withDeadline(never(), 5, 'thing').catch((e: Error) => e.message)).to.equal('thing took longer than 5 ms');
  });

  it("ends with the signal's reason when it aborts, at once when it already has", async () => {
    const ac = new AbortController();
    const waiting = settle(never(), onAbort(ac.signal)).catch((e: unknown) => e);
    ac.abort(new Error('page gone'));
    expect(((await waiting) as Error).message).to.equal('page gone');
    const later = counted();
    const err = await settle(Promise.resolve(1), onAbort(ac.signal), later).catch((e: Error) => e);
    expect((err as Error).message).to.equal('page gone');
    // armed after the wait was over: taken off at once
    expect([later.armed, later.off]).to.deep.equal([1, 1]);
  });

  it('afterSettled arms a way out once a promise settled; untilSettled takes it off then', async () => {
    let ahead!: () => void;
    const renderAhead = new Promise<void>((r) => (ahead = r));
    const armed = counted();
    const waiting = settle(never(), afterSettled(renderAhead, armed), afterMs(30, () => new Error('over')));
    await new Promise((r) => setTimeout(r, 5));
    expect(armed.armed).to.equal(0);
    ahead();
    expect(await waiting.catch((e: Error) => e.message)).to.equal('over');
    expect([armed.armed, armed.off]).to.deep.equal([1, 1]);
    // ended before the promise settled: never armed
    const late = counted();
    expect(await settle(Promise.resolve(1), afterSettled(never(), late))).to.equal(1);
    expect(late.armed).to.equal(0);

    const tooLong = counted();
    const done = settle(never(), untilSettled(Promise.resolve(), tooLong), afterMs(20, () => new Error('own deadline')));
    expect(await done.catch((e: Error) => e.message)).to.equal('own deadline');
    expect([tooLong.armed, tooLong.off >= 1]).to.deep.equal([1, true]);
  });

  it('waitAtMost: true when the promise settled either way in time, false when time ran out', async () => {
    expect(await waitAtMost(Promise.resolve(), 1000)).to.equal(true);
    expect(await waitAtMost(Promise.reject(new Error('x')), 1000)).to.equal(true);
    expect(await waitAtMost(never(), 5)).to.equal(false);
  });

  it('keeps no outcome reachable from a signal or promise that outlives the wait (Promise.race does: the same measure sees it)', async function () {
    this.timeout(60000);
    const waits = 200; // of half a megabyte each: 100 MB
    const answer = () => Promise.resolve(piece());
    const longLived = never();
    const life = new AbortController();
    let before = await heapAfterGc();
    for (let i = 0; i < waits; i++) await settle(answer(), onAbort(life.signal), afterMs(60000, () => new Error('late')));
    // the wait on the long-lived promise itself, ended by its deadline with a large error
    for (let i = 0; i < waits; i++) await settle(longLived, afterMs(1, () => new Error(piece()))).catch(() => undefined);
    for (let i = 0; i < waits; i++) await waitAtMost(longLived, 1);
    const kept = (await heapAfterGc()) - before;
    expect(kept, `${(kept / MB).toFixed(1)} MB kept after ${waits} waits of 0.5 MB`).to.be.below(10 * MB);

    before = await heapAfterGc();
    for (let i = 0; i < waits; i++) await Promise.race([answer(), longLived]);
    const raced = (await heapAfterGc()) - before;
    expect(raced, `${(raced / MB).toFixed(1)} MB kept by Promise.race`).to.be.above((waits / 4) * MB);
    // both still alive at the last measure (V8 collects a variable nothing reads any more)
    expect(life.signal.aborted).to.equal(false);
    expect(await waitAtMost(longLived, 1)).to.equal(false);
  });

  it('src/ has no Promise.race: a race against a long-lived promise keeps every outcome (src/settle.ts)', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|js|mjs)$/.test(e.name)) {
          readFileSync(p, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              if (/Promise\.(race|any)\s*\(/.test(line) && !/^\s*(\/\/|\*)/.test(line)) offenders.push(`${p}:${i + 1}`);
            });
        }
      }
    };
    walk('src');
    expect(offenders).to.deep.equal([]);
  });
});
