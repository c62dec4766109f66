// A clock tests move by hand (trial expiry, rate-limit windows, billing periods, retries).
import type { Clock } from '../../src/clock.js';

export const DAY = 86_400_000;

export class FakeClock implements Clock {
  constructor(public t: number = Date.UTC(2025, 0, 1, 12, 0, 0)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
}
