// JSON Schemas of the JSON response bodies that no other schema file defines; the OpenAPI document
// is built from them, and its test validates real responses with them.
import { ERROR_CODES } from '../../errorCodes.js';
import { RESET_REASONS } from '../../render/resetReasons.js';

const isoTimestamp = { type: 'string', format: 'date-time' } as const;

export const errorObjectSchema = {
  $id: 'ErrorObject',
  type: 'object',
  description: 'Every error response. `error` is one of the codes listed with each response.',
  required: ['error'],
  properties: {
    error: {
      type: 'string',
      enum: ERROR_CODES,
      description: 'Error code.',
    },
    detail: { type: 'string', description: 'Human-readable explanation, naming the field at fault.' },
  },
} as const;

export const statusSchema = {
  $id: 'Status',
  type: 'object',
  description: 'Health of the service. `healthy` only when the page pool can render now; otherwise `degraded` with a reason (still 200).',
  required: ['status', 'oauth'],
  properties: {
    status: { type: 'string', enum: ['healthy', 'degraded'] },
    reason: { type: 'string', description: 'Why the service is degraded (only when it is).' },
    buildHash: { type: 'string', description: 'Build identifier: the git commit of the build.' },
    kvLatency: { type: 'number', description: 'Round trip to the store, milliseconds.' },
    oauth: {
      type: 'object',
      required: ['google'],
      properties: { google: { type: 'boolean', description: 'Whether Google OAuth is configured (GOOGLE_CLIENT_ID).' } },
    },
    renderer: {
      type: 'object',
      description: 'How Chromium is contained. `sandbox: off` (no usable sandbox on this host) comes with a warning.',
      required: ['sandbox', 'mode', 'uid'],
      properties: {
        sandbox: { type: 'string', enum: ['on', 'off'], description: "Whether Chromium's own sandbox is active." },
        mode: { type: 'string', enum: ['setpriv', 'sandbox', 'off'], description: 'setpriv: a root service starts Chromium as an unprivileged user; sandbox: as its own user.' },
        uid: { type: 'integer', description: 'The user id Chromium runs as.' },
        warning: { type: 'string', description: 'Present when the sandbox is off.' },
        fingerprint: {
          type: 'string',
          description: 'What draws the images: `chartjs=<v>; chromium=<v>; fonts=<hash>` (Chart.js 4), as the X-Chartshot-Renderer header of image responses.',
        },
      },
    },
    memoryWall: {
      type: 'object',
      description:
        "What bounds Chromium's memory. `cgroup`: the kernel limit on Chromium's whole process tree (`none`: no cgroup could be made, `reason` says why; then only the in-page budget holds). `renderBudgetMb`: what caller code may allocate in one render.",
      required: ['cgroup', 'limitMb', 'pidsMax', 'renderBudgetMb'],
      properties: {
        cgroup: { type: 'string', enum: ['v1', 'v2', 'none'] },
        limitMb: { type: ['integer', 'null'], description: 'CHROMIUM_MEMORY_MB, when a cgroup holds it.' },
        pidsMax: { type: ['integer', 'null'], description: 'CHROMIUM_PIDS_MAX, when a cgroup holds it.' },
        renderBudgetMb: { type: 'integer', description: 'RENDER_MEMORY_MB: typed arrays, canvases and images per render.' },
        reason: { type: 'string', description: 'Why there is no cgroup, or no task limit.' },
      },
    },
    pageResets: {
      type: 'object',
      description:
        'Pages reloaded or replaced since start, by reason (as chartshot_page_resets_total{reason}): caller_code (functions not proven pure), page_state (plugin objects, annotations, treemaps), failed, interrupted (past the render deadline), memory, crash, recycled (PAGE_MAX_RENDERS), version_switch (another Chart.js version).',
      required: [...RESET_REASONS],
      properties: Object.fromEntries(RESET_REASONS.map((r) => [r, { type: 'integer', minimum: 0 }])),
      additionalProperties: false,
    },
    nodeHeap: {
      type: 'object',
      description:
        "Node's heap limit in effect and where it came from: MAX_HEAP_MB, else a quarter of the memory the process may use (its cgroup's limit, else the host's memory), applied as --max-old-space-size by `chartshot serve`.",
      required: ['limitMb', 'oldSpaceMb', 'source', 'memoryMb', 'memorySource'],
      properties: {
        limitMb: { type: 'integer', description: "V8's heap limit in effect, MB: the old space plus the young generation." },
        oldSpaceMb: { type: ['integer', 'null'], description: "The --max-old-space-size Node runs with; null when it runs with V8's default." },
        source: { type: 'string', description: 'MAX_HEAP_MB, cgroup v2 memory.max, cgroup v1 memory.limit_in_bytes or host memory (the default), node --max-old-space-size (a flag given to Node itself), or node default (a server not started by `chartshot serve`).' },
        memoryMb: { type: 'integer', description: 'The memory the process (Node and Chromium) may use, MB.' },
        memorySource: { type: 'string', enum: ['cgroup v2 memory.max', 'cgroup v1 memory.limit_in_bytes', 'host memory'] },
      },
    },
    timestamp: { ...isoTimestamp, description: 'When this report was made.' },
  },
} as const;

export const pressureSchema = {
  $id: 'Pressure',
  type: 'object',
  description: 'Load and readiness of this instance (GET /v1/pressure); no credentials, no account data.',
  required: ['accepting', 'pages', 'usable', 'busy', 'queued', 'maxQueue', 'load', 'memory', 'timestamp'],
  properties: {
    accepting: { type: 'boolean', description: 'Whether this instance takes new work now (the status is 200 when it does, 503 when not).' },
    reason: {
      type: 'string',
      enum: ['draining', 'no_page', 'memory'],
      description: 'Why it takes no work: draining (shutting down), no_page (no page can render), memory (less than a tenth of the heap limit free).',
    },
    pages: { type: 'integer', minimum: 0, description: 'Pages the pool keeps (POOL_SIZE).' },
    usable: { type: 'integer', minimum: 0, description: 'Pages alive and able to render, idle or busy.' },
    busy: { type: 'integer', minimum: 0, description: 'Pages rendering now.' },
    queued: { type: 'integer', minimum: 0, description: 'Requests waiting for a page.' },
    maxQueue: { type: 'integer', minimum: 0, description: 'Requests allowed to wait (MAX_QUEUE); more are refused with 503 at once.' },
    load: { type: 'number', minimum: 0, description: '(busy + queued) / pages: 1 means every page busy and nobody waiting. What an autoscaler targets.' },
    storeReachable: {
      type: 'boolean',
      description:
        'With PostgreSQL (DATABASE_URL): whether it answered the last call. False while it is away; requests that need it then get 503 service_unavailable with Retry-After. Not part of `accepting`: every instance shares the store, so no other instance would do better. Absent with SQLite.',
    },
    memory: {
      type: 'object',
      required: ['heapUsedBytes', 'heapLimitBytes', 'headroomBytes', 'headroomRatio'],
      properties: {
        heapUsedBytes: { type: 'integer', minimum: 0 },
        heapLimitBytes: { type: 'integer', minimum: 0, description: "Node's heap limit." },
        headroomBytes: { type: 'integer', minimum: 0, description: 'heapLimitBytes - heapUsedBytes.' },
        headroomRatio: { type: 'number', minimum: 0, maximum: 1, description: 'headroomBytes / heapLimitBytes.' },
      },
    },
    timestamp: { ...isoTimestamp, description: 'When this report was made.' },
  },
  additionalProperties: false,
} as const;

export const automationResultSchema = {
  $id: 'AutomationResult',
  type: 'object',
  description: 'The 201 body of the automation-style (Zapier-style) endpoints.',
  required: ['chart_url', 'chart_id', 'download_url', 'preview_url', 'format', 'width', 'height'],
  properties: {
    chart_url: { type: 'string', format: 'uri', description: 'Permanent short URL of the image ({base_url}/v1/chart/<chart_id>).' },
    chart_id: { type: 'string', description: 'Chart id.' },
    download_url: { type: 'string', format: 'uri', description: 'The image served as an attachment (Content-Disposition: attachment).' },
    preview_url: { type: 'string', format: 'uri', description: 'An HTML page showing the image.' },
    format: { type: 'string', enum: ['png', 'svg'] },
    width: { type: 'number' },
    height: { type: 'number' },
  },
} as const;

export const usageAnalyticsSchema = {
  $id: 'UsageAnalytics',
  type: 'object',
  required: ['currentUsage', 'quickStats'],
  properties: {
    currentUsage: {
      type: 'object',
      required: ['period', 'count', 'limit', 'remaining', 'resetTime'],
      properties: {
        period: { type: 'string', description: 'The billing period (month).' },
        count: { type: 'integer', minimum: 0 },
        limit: { type: 'integer', description: 'Generations allowed in the period.' },
        remaining: { type: 'integer' },
        resetTime: isoTimestamp,
      },
    },
    quickStats: {
      type: 'object',
      required: ['totalRequests', 'successRate', 'averageRenderTime', 'cacheHitRate'],
      properties: {
        totalRequests: { type: 'integer', minimum: 0 },
        successRate: { type: 'number', minimum: 0, maximum: 100, description: 'Percent.' },
        averageRenderTime: { type: 'number', minimum: 0, description: 'Milliseconds.' },
        cacheHitRate: { type: 'number', minimum: 0, maximum: 100, description: 'Percent.' },
      },
    },
  },
} as const;

export const billingInfoSchema = {
  $id: 'BillingInfo',
  type: 'object',
  required: ['plan', 'billing_cycle', 'usage_limit', 'current_usage', 'billing_period_start', 'billing_period_end', 'next_billing_date', 'amount_due'],
  properties: {
    plan: { type: 'string', description: 'trial, starter, growth or enterprise.' },
    billing_cycle: { type: 'string', enum: ['monthly', 'annual'] },
    usage_limit: { type: ['integer', 'null'], description: 'Generations per period (null: custom/unlimited).' },
    current_usage: { type: 'integer', minimum: 0 },
    billing_period_start: isoTimestamp,
    billing_period_end: isoTimestamp,
    next_billing_date: isoTimestamp,
    amount_due: { type: 'number', description: 'GBP.' },
  },
} as const;

export const invoiceListSchema = {
  $id: 'InvoiceList',
  type: 'object',
  required: ['invoices'],
  properties: {
    invoices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'date', 'amount', 'status', 'download_url'],
        properties: {
          id: { type: 'string' },
          date: isoTimestamp,
          amount: { type: 'number', description: 'GBP.' },
          status: { type: 'string', description: 'paid is one value.' },
          download_url: { type: 'string', format: 'uri', description: '{base_url}/billing/invoices/<invoice_id>/pdf' },
        },
      },
    },
  },
} as const;

export const trialKeySchema = {
  $id: 'TrialKey',
  type: 'object',
  required: ['api_key'],
  properties: {
    api_key: { type: 'string', pattern: '^trial_', description: 'Valid 30 days; 100 chart generations in total.' },
  },
} as const;

