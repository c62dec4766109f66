// Tracing as the code sees it: spans by name with attributes, a no-op unless OTEL_EXPORTER_OTLP_*
// is set. This file loads no OpenTelemetry package: src/tracing/otel.ts is imported dynamically
// by startTracing(), so a server without an endpoint runs none of it (docs/decisions/0019-tracing.md).
import type { RequestListener } from 'node:http';
import type { Config } from './config.js';
import type { Logger } from './log.js';

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface SpanHandle {
  set(attributes: SpanAttributes): void;
}

export interface Tracing {
  /** `fn` inside a child span of the current one; its failure ends the span as an error. */
  span<T>(name: string, attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>): Promise<T>;
  /**
   * A middleware-like step (auth, rate limit) in a span that ends when the step calls `next`;
   * what `next` runs is not inside it (it stays a child of the request, not of the step).
   */
  step(name: string, run: (next: () => Promise<void>) => Promise<void>, next: () => Promise<void>): Promise<void>;
  /** Adds attributes to the current request's HTTP span (e.g. the route once the router matched). */
  setRequest(attributes: SpanAttributes): void;
}

/** The running OpenTelemetry side, as main.ts holds it. */
export interface ActiveTracing extends Tracing {
  /** Every request in an HTTP server span (a `traceparent` header continued). */
  listener(inner: RequestListener): RequestListener;
  /** The store with a span around each call (`store charts.get`). */
  traceStore<S extends object>(store: S): S;
  /** Exports what is left and stops. */
  shutdown(): Promise<void>;
}

const noSpan: SpanHandle = { set() {} };
const off: Tracing = {
  span: (_name, _attributes, fn) => fn(noSpan),
  step: (_name, run, next) => run(next),
  setRequest() {},
};

let current: Tracing = off;

/** The tracing in effect: off (no-op) unless a server started it. */
export function tracer(): Tracing {
  return current;
}

/** True while a server's tracing runs: what is only there for spans (the HTTP guards' wrappers) is installed only then. */
export function tracingOn(): boolean {
  return current !== off;
}

/** Starts OpenTelemetry when config.otel is set (null otherwise: nothing loaded). */
export async function startTracing(config: Config, log: Logger): Promise<ActiveTracing | null> {
  if (!config.otel) return null;
  const { createOtelTracing } = await import('./tracing/otel.js');
  const t = createOtelTracing(config.otel, config.buildHash, log);
  current = t;
  return {
    ...t,
    async shutdown() {
      if (current === t) current = off;
      await t.shutdown();
    },
  };
}
