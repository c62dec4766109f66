// OpenTelemetry behind src/tracing.ts: a tracer provider exporting over OTLP/HTTP (JSON) in
// batches, W3C trace context read from `traceparent`, the current span kept in this module's own
// AsyncLocalStorage (no global registration: a process may start and stop several servers).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { OtelConfig } from '../config.js';
import type { Logger } from '../log.js';
import type { ActiveTracing, SpanAttributes, SpanHandle } from '../tracing.js';

const headerGetter: TextMapGetter<IncomingMessage['headers']> = {
  keys: (h) => Object.keys(h),
  get: (h, key) => h[key],
};

function clean(a: SpanAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(a)) if (v !== undefined) out[k] = v;
  return out;
}

const handle = (span: Span): SpanHandle => ({ set: (a) => span.setAttributes(clean(a)) });

export function createOtelTracing(config: OtelConfig, version: string, log: Logger): ActiveTracing {
  const exporter = new OTLPTraceExporter({ url: config.tracesUrl, headers: config.headers });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.exportDelayMs })],
  });
  const tracer = provider.getTracer('chartshot', version);
  const propagator = new W3CTraceContextPropagator();
  // the context of the span in effect (a request's, then its children's)
  const active = new AsyncLocalStorage<{ ctx: Context; request: Span | null }>();

  const parent = () => active.getStore()?.ctx ?? ROOT_CONTEXT;

  return {
    async span(name, attributes, fn) {
      const store = active.getStore();
      const span = tracer.startSpan(name, { attributes: clean(attributes) }, parent());
      try {
        const value = await active.run({ ctx: trace.setSpan(parent(), span), request: store?.request ?? null }, () => fn(handle(span)));
        span.setAttribute('chartshot.outcome', 'ok');
        return value;
      } catch (err) {
        const e = err as { code?: string; message?: string };
        span.setAttributes({ 'chartshot.outcome': 'error', ...(typeof e.code === 'string' ? { 'error.type': e.code } : {}) });
        span.setStatus({ code: SpanStatusCode.ERROR, message: String(e.message ?? err).slice(0, 200) });
        throw err;
      } finally {
        span.end();
      }
    },

    async step(name, run, next) {
      const outer = active.getStore();
      const ctx = parent();
      const span = tracer.startSpan(name, {}, ctx);
      let ended = false;
      const end = (outcome: string) => {
        if (ended) return;
        ended = true;
        span.setAttribute('chartshot.outcome', outcome);
        span.end();
      };
      try {
        await active.run({ ctx: trace.setSpan(ctx, span), request: outer?.request ?? null }, () =>
          run(() => {
            end('ok');
            // the rest of the request is the request's child again, not this step's
            return outer ? active.run(outer, next) : active.exit(next);
          }),
        );
        end('refused');
      } catch (err) {
        if (!ended) {
          const e = err as { code?: string };
          if (typeof e.code === 'string') span.setAttribute('error.type', e.code);
          span.setStatus({ code: SpanStatusCode.ERROR });
          end('refused');
        }
        throw err;
      }
    },

    setRequest(attributes) {
      active.getStore()?.request?.setAttributes(clean(attributes));
    },

    listener(inner: RequestListener): RequestListener {
      return (req: IncomingMessage, res: ServerResponse) => {
        const incoming = propagator.extract(ROOT_CONTEXT, req.headers, headerGetter);
        const path = (req.url ?? '/').split('?')[0]!;
        const span = tracer.startSpan(
          `${req.method} ${path.length > 64 ? path.slice(0, 64) : path}`,
          { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '', 'url.path': path.slice(0, 256) } },
          incoming,
        );
        let ended = false;
        const end = (finished: boolean) => {
          if (ended) return;
          ended = true;
          const status = res.statusCode;
          const tier = res.getHeader('x-cache-tier');
          span.setAttributes({
            'http.response.status_code': status,
            'chartshot.outcome': !finished ? 'client_gone' : status >= 500 ? 'error' : status >= 400 ? 'refused' : 'ok',
            ...(typeof tier === 'string' ? { 'chartshot.cache_tier': tier } : {}),
          });
          if (status >= 500 || !finished) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        };
        res.once('finish', () => end(true));
        res.once('close', () => end(res.writableFinished));
        active.run({ ctx: trace.setSpan(incoming, span), request: span }, () => inner(req, res));
      };
    },

    traceStore<S extends object>(store: S): S {
      const wrap = <T extends object>(target: T, prefix: string): T =>
        new Proxy(target, {
          get: (t, prop, receiver) => {
            const value = Reflect.get(t, prop, receiver) as unknown;
            if (typeof prop !== 'string') return value;
            if (typeof value === 'function') {
              const name = `store ${prefix}${prop}`;
              return (...args: unknown[]) => {
                // only calls made while a request is traced: background jobs stay out of traces
                if (!active.getStore()) return (value as (...a: unknown[]) => unknown).apply(t, args);
                const span = tracer.startSpan(name, { attributes: { 'db.operation.name': `${prefix}${prop}` } }, parent());
                let out: unknown;
                try {
                  out = (value as (...a: unknown[]) => unknown).apply(t, args);
                } catch (err) {
                  span.setStatus({ code: SpanStatusCode.ERROR });
                  span.end();
                  throw err;
                }
                if (out instanceof Promise) {
                  out.then(
                    () => span.end(),
                    () => {
                      span.setStatus({ code: SpanStatusCode.ERROR });
                      span.end();
                    },
                  );
                } else span.end();
                return out;
              };
            }
            // a family of the store (store.charts, store.usage): its calls too
            if (value !== null && typeof value === 'object' && !prefix) return wrap(value as object, `${prop}.`);
            return value;
          },
        });
      return wrap(store, '');
    },

    async shutdown() {
      try {
        await provider.forceFlush();
        await provider.shutdown();
      } catch (err) {
        log.warn({ err }, 'exporting the last traces failed');
      }
    },
  };
}
