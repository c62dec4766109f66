// The error a promise must reject with, for tests of refusals thrown by services and gates.
import { expect } from 'chai';

/** Awaits `p`, which must reject with an instance of `type`; returns that error. */
export async function rejection<E extends Error>(p: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(type);
    return err as E;
  }
  throw new Error(`expected a rejection with ${type.name}`);
}

/** Calls `f`, which must throw an instance of `type`; returns that error. */
export function thrown<E extends Error>(f: () => unknown, type: new (...args: never[]) => E): E {
  try {
    f();
  } catch (err) {
    expect(err).to.be.instanceOf(type);
    return err as E;
  }
  throw new Error(`expected a throw of ${type.name}`);
}
