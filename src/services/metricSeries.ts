// Counters and histograms by label values, counted in plain numbers and handed to prom-client's
// Registry at scrape time in the shape its own metrics give (name, help, type, values). Each
// observation is a lookup through nested maps by label value and a few additions: prom-client's
// own labelled observe builds a label object, validates it and builds a hash string every time
// (a tenth of a cache hit's CPU). The text exposition is prom-client's, unchanged.
import type { Registry } from 'prom-client';

interface Series {
  labels: Record<string, string>;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative), by upper bound; histograms only. */
  buckets: Float64Array | null;
}

/** A value pair as prom-client's Registry reads it from a metric's getForPromString(). */
interface ValuePair {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName?: string;
  exemplar?: null;
}

abstract class LabelledSeries<L extends string> {
  private readonly root = new Map<string, unknown>();
  private readonly all: Series[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    protected readonly labelNames: readonly L[],
    private readonly bucketCount: number,
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** The series of these label values (in labelNames' order), made on first use. */
  protected series(values: readonly string[]): Series {
    let node = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = node.get(values[i]!) as Map<string, unknown> | undefined;
      if (!next) node.set(values[i]!, (next = new Map()));
      node = next;
    }
    let s = node.get(values[last]!) as Series | undefined;
    if (!s) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((n, i) => (labels[n] = values[i]!));
      s = { labels, count: 0, sum: 0, buckets: this.bucketCount > 0 ? new Float64Array(this.bucketCount) : null };
      node.set(values[last]!, s);
      this.all.push(s);
    }
    return s;
  }

  protected abstract values(all: readonly Series[]): ValuePair[];
  abstract readonly type: 'counter' | 'histogram';

  async getForPromString(): Promise<{ name: string; help: string; type: string; values: ValuePair[]; aggregator: 'sum' }> {
    // aggregator: how prom-client's cluster registry would merge workers (sum, its default)
    return { name: this.name, help: this.help, type: this.type, values: this.values(this.all), aggregator: 'sum' };
  }

  /** As prom-client's get(): shared labels merged into each value's labels. */
  async get(): Promise<{ name: string; help: string; type: string; values: ValuePair[]; aggregator: 'sum' }> {
    const data = await this.getForPromString();
    return { ...data, values: data.values.map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })) };
  }

  reset(): void {
    this.root.clear();
    this.all.length = 0;
  }
}

export class LabelledCounter<L extends string> extends LabelledSeries<L> {
  readonly type = 'counter';

  constructor(opts: { name: string; help: string; labelNames: readonly L[] }, registry: Registry) {
    super(opts.name, opts.help, opts.labelNames, 0, registry);
  }

  /** Adds one to the series of these label values (in labelNames' order). */
  inc(...values: string[]): void {
    this.series(values).count++;
  }

  protected values(all: readonly Series[]): ValuePair[] {
    return all.map((s) => ({ labels: s.labels, value: s.count }));
  }
}

export class LabelledHistogram<L extends string> extends LabelledSeries<L> {
  readonly type = 'histogram';
  private readonly upperBounds: readonly number[];

  constructor(opts: { name: string; help: string; labelNames: readonly L[]; buckets: readonly number[] }, registry: Registry) {
    super(opts.name, opts.help, opts.labelNames, opts.buckets.length, registry);
    this.upperBounds = [...opts.buckets].sort((a, b) => a - b);
  }

  /** Observes `value` in the series of these label values (in labelNames' order). */
  observe(value: number, ...values: string[]): void {
    if (!Number.isFinite(value)) return;
    const s = this.series(values);
    s.count++;
    s.sum += value;
    const b = this.upperBounds;
    for (let i = 0; i < b.length; i++) {
      if (value <= b[i]!) {
        s.buckets![i]!++;
        break;
      }
    }
  }

  protected values(all: readonly Series[]): ValuePair[] {
    const out: ValuePair[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of all) {
      let acc = 0;
      this.upperBounds.forEach((le, i) => {
        acc += s.buckets![i]!;
        out.push({ labels: { le }, sharedLabels: s.labels, value: acc, metricName: bucket, exemplar: null });
      });
      out.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket, exemplar: null });
      out.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      out.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return out;
  }
}
