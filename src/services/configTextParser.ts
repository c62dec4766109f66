// JSON5 parsing of large config text off the event loop: json5 is plain JavaScript, about 0.3 µs
// a byte (a 2 MB config is 0.5-0.7 s of CPU), and on the event loop that stalls every other
// request. A few worker threads, started on first use and kept warm, parse it; small texts stay
// inline, where the hop would cost more than the parse. Why: docs/decisions/0015-gate-parser.md.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { invalidInput, serviceUnavailable } from '../errors.js';
import type { ParsedConfigText } from '../chart/quickchart.js';

export interface ConfigTextParserOptions {
  /** Worker threads at most (each holds one parse at a time). */
  workers: number;
  /** A parse still running after this is stopped (its worker is replaced) and refused with 400. */
  parseTimeoutMs: number;
  /** Parses waiting for a worker at most; past it 503 with Retry-After. */
  maxQueue: number;
}

export const DEFAULT_CONFIG_PARSER: ConfigTextParserOptions = { workers: 1, parseTimeoutMs: 10_000, maxQueue: 32 };

// Plain CommonJS run with `eval`: the same source under tsx (tests) and from dist/. JSON is
// answered as such (the caller parses it natively, keeping the exact text); only JSON5's value
// comes back (structured clone keeps NaN, Infinity and own "__proto__" keys as JSON5 made them).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const JSON5 = require(workerData.json5Path);
parentPort.on('message', ({ id, text }) => {
  try { JSON.parse(text); parentPort.postMessage({ id, kind: 'json' }); return; } catch {}
  let value;
  try { value = JSON5.parse(text); } catch { parentPort.postMessage({ id, kind: 'invalid' }); return; }
  parentPort.postMessage({ id, kind: 'data', value });
});
`;

/** A 2 MB JSON5 text makes a value of a few tens of MB; this leaves room and bounds the rest. */
const WORKER_HEAP_MB = 512;

type Answer = { kind: 'json' } | { kind: 'invalid' } | { kind: 'data'; value: unknown };

interface Job {
  id: number;
  text: string;
  resolve(answer: Answer): void;
  reject(err: unknown): void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer?: NodeJS.Timeout;
}

export class ConfigTextParser {
  readonly #opts: ConfigTextParserOptions;
  readonly #json5Path = createRequire(import.meta.url).resolve('json5');
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;

  constructor(opts: Partial<ConfigTextParserOptions> = {}) {
    this.#opts = { ...DEFAULT_CONFIG_PARSER, ...opts };
  }

  /** Worker threads running now (a test seam: they start on first use). */
  get workerCount(): number {
    return this.#slots.length;
  }

  /**
   * What `text` is, parsed off the event loop: JSON (the caller parses it natively), JSON5 data
   * (its value), or neither. A timeout is 400 invalid_input; a full queue 503.
   */
  parse(text: string): Promise<ParsedConfigText> {
    if (this.#closed) return Promise.reject(serviceUnavailable(1, 'the server is shutting down'));
    if (this.#queue.length >= this.#opts.maxQueue) return Promise.reject(serviceUnavailable(1, 'too many large configs being parsed; try again'));
    return new Promise<Answer>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, text, resolve, reject });
      this.#pump();
    }).then((answer) => ({ text, ...answer }));
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(serviceUnavailable(1, 'the server is shutting down'));
    await Promise.all(this.#slots.splice(0).map((slot) => this.#stop(slot, serviceUnavailable(1, 'the server is shutting down'))));
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.job === null);
      if (!slot && this.#slots.length < this.#opts.workers) slot = this.#start();
      if (!slot) return;
      const job = this.#queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => {
        void this.#stop(slot, invalidInput(`the config took longer than ${this.#opts.parseTimeoutMs} ms to parse; send it as JSON`));
        this.#pump();
      }, this.#opts.parseTimeoutMs);
      slot.worker.postMessage({ id: job.id, text: job.text });
    }
  }

  #start(): Slot {
    // its own heap, bounded: a text that blows it up fails its parse (400), not the server
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { json5Path: this.#json5Path }, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    // an idle worker never keeps the process alive
    worker.unref();
    const slot: Slot = { worker, job: null };
    worker.on('message', (msg: Answer & { id: number }) => {
      const job = slot.job;
      if (!job || job.id !== msg.id) return;
      clearTimeout(slot.timer);
      slot.job = null;
      job.resolve(msg.kind === 'data' ? { kind: 'data', value: msg.value } : { kind: msg.kind });
      this.#pump();
    });
    // a worker that dies (out of memory on a hostile text) fails its job, then is replaced on demand
    worker.on('error', () => void this.#stop(slot, invalidInput('the config could not be parsed')));
    worker.on('exit', () => void this.#stop(slot, invalidInput('the config could not be parsed')));
    this.#slots.push(slot);
    return slot;
  }

  async #stop(slot: Slot, reason: unknown): Promise<void> {
    clearTimeout(slot.timer);
    const job = slot.job;
    slot.job = null;
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
    job?.reject(reason);
    await slot.worker.terminate().catch(() => undefined);
    if (!this.#closed) this.#pump();
  }
}
