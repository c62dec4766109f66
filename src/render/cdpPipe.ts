// The pipe to Chromium (--remote-debugging-pipe=cbor): puppeteer's transport, translating its
// JSON to CDP's CBOR and back (cdpCbor.ts), plus calls of our own that skip puppeteer and JSON
// altogether: the render call (page.ts) is sent from here and its answer, the image included,
// is decoded once from the bytes Chromium wrote. Only browser.ts makes one.
import type { Readable, Writable } from 'node:stream';
import type { ConnectionTransport } from 'puppeteer-core';
import { ENVELOPE_HEADER_BYTES, decodeMessage, encodeMessage, messageLength } from './cdpCbor.js';

/** Ids of the calls made here directly: above any id puppeteer's own counter reaches (CDP ids
 *  are 32-bit). */
const DIRECT_IDS_FROM = 2 ** 30;
const DIRECT_IDS_TO = 2 ** 31 - 1;

/** A CDP call made without puppeteer: its `result`, or an Error with the protocol's message. */
export type DirectCall = (sessionId: string, method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
  sessionId: string;
}

export class CdpPipe implements ConnectionTransport {
  onmessage?: (message: string) => void;
  onclose?: () => void;
  private chunks: Buffer[] = [];
  private have = 0;
  private closed = false;
  private nextId = DIRECT_IDS_FROM;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly out: Writable,
    private readonly inp: Readable,
  ) {
    inp.on('data', (chunk: Buffer) => this.receive(chunk));
    inp.on('close', () => this.end('the browser closed the pipe'));
    inp.on('error', () => this.end('the pipe from the browser failed'));
    out.on('error', () => this.end('the pipe to the browser failed'));
  }

  /** puppeteer's messages. */
  send(message: string): void {
    if (this.closed) {
      // a connection made after the browser went: tell it, rather than leave its call waiting
      queueMicrotask(() => this.onclose?.());
      return;
    }
    this.out.write(encodeMessage(JSON.parse(message) as Record<string, unknown>));
  }

  /** A call on a session (a page's CDPSession id()), answered here, never seen by puppeteer. */
  readonly call: DirectCall = (sessionId, method, params) => {
    if (this.closed) return Promise.reject(new Error('the browser connection is closed'));
    const id = this.nextId;
    this.nextId = id === DIRECT_IDS_TO ? DIRECT_IDS_FROM : id + 1;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, sessionId });
      this.out.write(encodeMessage({ id, method, params, sessionId }));
    });
  };

  close(): void {
    this.end('the browser connection was closed');
    this.inp.destroy();
    this.out.destroy();
  }

  private receive(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.have += chunk.length;
    try {
      for (;;) {
        if (this.have < ENVELOPE_HEADER_BYTES) return;
        if (this.chunks[0]!.length < ENVELOPE_HEADER_BYTES) this.chunks = [Buffer.concat(this.chunks, this.have)];
        const n = messageLength(this.chunks[0]!);
        if (this.have < n) return;
        // the message is all here: joined once, however many reads it took
        const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.have);
        const rest = all.subarray(n);
        this.chunks = rest.length ? [rest] : [];
        this.have = rest.length;
        this.dispatch(decodeMessage(all.subarray(0, n)));
      }
    } catch {
      // bytes that are not CDP: nothing after them can be trusted
      this.close();
    }
  }

  private dispatch(msg: Record<string, unknown>): void {
    const id = msg.id;
    if (typeof id === 'number' && id >= DIRECT_IDS_FROM) {
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      const error = msg.error as { message?: unknown } | undefined;
      if (error) p.reject(new Error(`Protocol error: ${String(error.message ?? 'unknown')}`));
      else p.resolve((msg.result ?? {}) as Record<string, unknown>);
      return;
    }
    if (msg.method === 'Target.detachedFromTarget') {
      // its session will never answer: calls still waiting on it fail now
      const gone = (msg.params as { sessionId?: unknown } | undefined)?.sessionId;
      for (const [pid, p] of this.pending) {
        if (p.sessionId !== gone) continue;
        this.pending.delete(pid);
        p.reject(new Error('Protocol error: the session was detached'));
      }
    }
    this.onmessage?.(JSON.stringify(msg));
  }

  private end(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.pending.values()) p.reject(new Error(reason));
    this.pending.clear();
    this.onclose?.();
  }
}
