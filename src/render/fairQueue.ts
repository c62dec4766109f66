// The admission gate's queue (admission.ts): per-owner FIFOs served in turn, so no owner's
// burst delays the others by more than one item per turn.

/** Per-owner FIFOs, served one item per owner in turn. Pure. */
export class FairQueue<T> {
  private readonly fifos = new Map<string, T[]>();
  /** Owners with something queued, in service order; `next` points at the one served next. */
  private readonly ring: string[] = [];
  private next = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  sizeOf(owner: string): number {
    return this.fifos.get(owner)?.length ?? 0;
  }

  push(owner: string, item: T): void {
    let fifo = this.fifos.get(owner);
    if (!fifo) {
      fifo = [];
      this.fifos.set(owner, fifo);
      // A newcomer joins at the end of the current round: served after everyone already waiting
      // has had one turn at most.
      this.ring.splice(this.next, 0, owner);
      this.next = (this.next + 1) % this.ring.length;
    }
    fifo.push(item);
    this.count++;
  }

  /** The item shift() would return next, left in place. */
  peek(): T | undefined {
    if (this.count === 0) return undefined;
    return this.fifos.get(this.ring[this.next]!)![0];
  }

  /** The next item, round-robin across owners, FIFO within one owner. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const owner = this.ring[this.next]!;
    const fifo = this.fifos.get(owner)!;
    const item = fifo.shift()!;
    this.count--;
    if (fifo.length === 0) this.dropOwner(this.next);
    else this.next = (this.next + 1) % this.ring.length;
    return item;
  }

  /** Removes one item (a waiter that gave up); false when it was not queued. */
  remove(owner: string, item: T): boolean {
    const fifo = this.fifos.get(owner);
    const i = fifo ? fifo.indexOf(item) : -1;
    if (!fifo || i < 0) return false;
    fifo.splice(i, 1);
    this.count--;
    if (fifo.length === 0) this.dropOwner(this.ring.indexOf(owner));
    return true;
  }

  /**
   * How many queued items would be served before one more item of `owner`: everything of
   * its own, plus at most (own + 1) of every other owner (one per round until its turn).
   */
  ahead(owner: string): number {
    const own = this.sizeOf(owner);
    let n = own;
    for (const [o, fifo] of this.fifos) if (o !== owner) n += Math.min(fifo.length, own + 1);
    return n;
  }

  /** The owner with the most items queued (ties: the first found), or undefined when empty. */
  largest(): { owner: string; size: number } | undefined {
    let best: { owner: string; size: number } | undefined;
    for (const [owner, fifo] of this.fifos) if (!best || fifo.length > best.size) best = { owner, size: fifo.length };
    return best;
  }

  /** Removes and returns the newest item of `owner` (the one that waited least). */
  popNewest(owner: string): T | undefined {
    const fifo = this.fifos.get(owner);
    if (!fifo || fifo.length === 0) return undefined;
    const item = fifo.pop()!;
    this.count--;
    if (fifo.length === 0) this.dropOwner(this.ring.indexOf(owner));
    return item;
  }

  private dropOwner(index: number): void {
    const owner = this.ring[index]!;
    this.fifos.delete(owner);
    this.ring.splice(index, 1);
    if (index < this.next) this.next--;
    if (this.next >= this.ring.length) this.next = 0;
  }
}
