// The plain metric series (src/services/metricSeries.ts) expose exactly what prom-client's own
// Counter and Histogram expose for the same observations: same text, same JSON.
import { expect } from 'chai';
import { Counter, Histogram, Registry } from 'prom-client';
import { LabelledCounter, LabelledHistogram } from '../../src/services/metricSeries.js';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const OBSERVED: Array<[number, string, string]> = [
  [0.004, '/v1/chart', 'POST'],
  [0.005, '/v1/chart', 'POST'],
  [0.0051, '/v1/chart', 'POST'],
  [0.3, '/v1/chart/:id', 'GET'],
  [31, '/v1/chart/:id', 'GET'],
  [2.5, '/v1/open/chart', 'GET'],
  [0, 'unmatched', 'DELETE'],
];

describe('metric series', function () {
  it('a counter and a histogram give the text and JSON of prom-client for the same observations', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const c1 = new Counter({ name: 'x_requests_total', help: 'Requests.', labelNames: ['route', 'method', 'status'], registers: [theirs] });
    const h1 = new Histogram({ name: 'x_duration_seconds', help: 'Duration "quoted" \\ and\nnewline.', labelNames: ['route', 'method'], buckets: BUCKETS, registers: [theirs] });
    const c2 = new LabelledCounter({ name: 'x_requests_total', help: 'Requests.', labelNames: ['route', 'method', 'status'] }, ours);
    const h2 = new LabelledHistogram({ name: 'x_duration_seconds', help: 'Duration "quoted" \\ and\nnewline.', labelNames: ['route', 'method'], buckets: BUCKETS }, ours);
    for (const [v, route, method] of OBSERVED) {
      const status = v > 30 ? '500' : '200';
      c1.inc({ route, method, status });
      c2.inc(route, method, status);
      h1.observe({ route, method }, v);
      h2.observe(v, route, method);
    }
    expect(await ours.metrics()).to.equal(await theirs.metrics());
    // as JSON (prom-client leaves some fields undefined, which JSON drops)
    const json = async (r: Registry) => JSON.parse(JSON.stringify(await r.getMetricsAsJSON())) as unknown;
    expect(await json(ours)).to.deep.equal(await json(theirs));
    expect(await ours.metrics()).to.include('x_duration_seconds_bucket{le="0.005",route="/v1/chart",method="POST"} 2');
  });

  it('a series with no observation yet is not exported; reset forgets every series', async () => {
    const reg = new Registry();
    const c = new LabelledCounter({ name: 'y_total', help: 'Y.', labelNames: ['tier'] }, reg);
    expect(await reg.metrics()).to.equal('# HELP y_total Y.\n# TYPE y_total counter\n');
    c.inc('memory');
    c.inc('memory');
    c.inc('miss');
    expect(await reg.metrics()).to.equal('# HELP y_total Y.\n# TYPE y_total counter\ny_total{tier="memory"} 2\ny_total{tier="miss"} 1\n');
    reg.resetMetrics();
    expect(await reg.metrics()).to.equal('# HELP y_total Y.\n# TYPE y_total counter\n');
  });
});
