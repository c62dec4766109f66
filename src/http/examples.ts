// Realistic examples for the OpenAPI document: a request per operation that takes one (what
// "Try it out" in /docs sends), and an error object per error code (what each status shows).
import type { ErrorCode } from '../errors.js';

const BAR = {
  type: 'bar',
  data: { labels: ['Q1', 'Q2', 'Q3', 'Q4'], datasets: [{ label: 'Revenue', data: [12, 19, 3, 5] }] },
  options: { plugins: { title: { display: true, text: 'Revenue by quarter' } } },
};
const chartBody = { chart: BAR, width: 600, height: 300, format: 'png', backgroundColor: 'white' };

/** The example of an operation, keyed "METHOD /path" as the route table writes it. */
export interface RequestExample {
  /** The JSON body Try it out starts from. */
  body?: unknown;
  /** Query parameters filled in (only those a first call needs: the others stay empty). */
  query?: Record<string, string | number>;
}

export const REQUEST_EXAMPLES: Readonly<Record<string, RequestExample>> = {
  'POST /v1/chart': { body: chartBody },
  'GET /v1/chart': { query: { chart: JSON.stringify(BAR), width: 600, height: 300 } },
  'POST /v1/chart/create': { body: chartBody },
  'GET /v1/open/chart': { query: { c: JSON.stringify({ type: 'bar', data: BAR.data }), w: 500, h: 300 } },
  'POST /v1/zapier/bar-chart': { body: { title: 'Revenue by quarter', labels: 'Q1,Q2,Q3,Q4', values: '12,19,3,5' } },
  'POST /v1/zapier/line-chart': { body: { title: 'Daily signups', labels: 'Mon,Tue,Wed,Thu,Fri', values: '31,45,38,52,60', fillArea: true } },
  'POST /v1/zapier/pie-chart': { body: { title: 'Traffic sources', labels: 'Search,Direct,Social', values: '55,30,15', legendPosition: 'right' } },
  'POST /v1/zapier/multi-series-chart': {
    body: {
      title: 'Revenue and costs',
      labels: 'Q1,Q2,Q3,Q4',
      series: [
        { name: 'Revenue', values: '12,19,3,5' },
        { name: 'Costs', values: '8,11,4,6', color: '#EF4444' },
      ],
      type: 'bar',
    },
  },
  // the QuickChart-compatible routes (Chart.js 2 by default, as QuickChart draws)
  'GET /chart': { query: { c: "{type:'bar',data:{labels:['Q1','Q2','Q3','Q4'],datasets:[{label:'Revenue',data:[12,19,3,5]}]}}", w: 500, h: 300 } },
  'POST /chart': { body: { version: '2', width: 500, height: 300, chart: { type: 'bar', data: BAR.data } } },
  'POST /chart/create': { body: { version: '2', width: 500, height: 300, chart: { type: 'bar', data: BAR.data } } },
  'GET /qr': { query: { text: 'https://example.com' } },
  'POST /signup/anon': { body: {} },
  'GET /usage/analytics': { query: { days: 30 } },
  // one JSON-RPC message per POST: a tool call that draws the bar chart
  'POST /mcp': {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'render_chart', arguments: { chart: BAR, width: 600, height: 300, format: 'png' } } },
  },
};

/** A detail each code really comes with (the service's own wording). */
export const ERROR_EXAMPLES: Readonly<Record<ErrorCode, string>> = {
  invalid_input: 'format must be one of png, svg, pdf',
  chart_required: 'chart (or c) is required',
  invalid_dimensions: 'width must be an integer 1-2000 on the starter plan',
  unauthorized: 'a valid API key is required',
  invalid_session: 'invalid or expired session token',
  forbidden: 'account is suspended: new charts are disabled',
  not_found: 'no such chart',
  rate_limit_exceeded: 'rate limit exceeded',
  trial_limit_reached: 'trial usage exhausted (100 charts)',
  internal_error: 'internal error',
  render_failed: 'render timed out after 10 s: a callback did not return',
  url_too_long: 'the URL is 9120 bytes; at most 8192',
  config_too_large: 'c is 7012 bytes; at most 6144',
  invalid_config: 'c is not valid JSON: Unexpected token } in JSON at position 41',
  rate_limited: 'too many renders from this address',
  service_unavailable: 'server busy, try again',
};
