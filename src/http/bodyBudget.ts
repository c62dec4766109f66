// The process's budget of request-body bytes being received at once (MAX_BODY_BYTES_IN_FLIGHT):
// each reader reserves what it will hold before it holds it, and gives it back when its read
// ends, so slow or stalled bodies cannot pile up in memory; past the budget a request is
// answered 503 with Retry-After at once, without reading its body.
export class BodyBudget {
  private held = 0;
  /** Bytes read by body readers since start (parsed or not): what the tests and the note measure. */
  bytesRead = 0;

  constructor(readonly maxBytes: number) {}

  /** Takes `bytes` from the budget; false (nothing taken) when they do not fit. */
  reserve(bytes: number): boolean {
    if (this.held + bytes > this.maxBytes) return false;
    this.held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }

  /** Bytes reserved now. */
  get inFlight(): number {
    return this.held;
  }
}
