// POST /mcp: the MCP server over Streamable HTTP, stateless (no session: each POST carries one
// JSON-RPC message and gets its answer as JSON). Behind X-Api-Key and the rate limit like /v1;
// each tool call that draws is a generation of the caller's plan. Why this way:
// docs/decisions/0018-mcp-server.md.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { RouterContext } from '@koa/router';
import type { Logger } from '../../log.js';
import { callerEngine, type CallerEngineDeps } from '../../mcp/engine.js';
import { createMcpServer } from '../../mcp/server.js';
import { clientSignal } from '../clientGone.js';
import { route, type RouteDescriptor } from '../route.js';
import { rateLimitHeaders, retryAfter } from '../routeDocs.js';
import { callerOf } from '../state.js';

export interface McpRouteDeps extends CallerEngineDeps {
  log: Logger;
}

/** One JSON-RPC 2.0 message (MCP has no batches since 2025-06-18). */
const jsonRpcMessageSchema = {
  $id: 'McpMessage',
  type: 'object',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer'], description: 'Present on requests: the answer carries it.' },
    method: { type: 'string', description: 'initialize, notifications/initialized, tools/list, tools/call, ping...' },
    params: { type: 'object' },
  },
} as const;

const jsonRpcAnswer = {
  type: 'object',
  required: ['jsonrpc'],
  properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, result: { type: 'object' }, error: { type: 'object' } },
} as const;

/** The request as the SDK's web-standard transport reads it (the body is handed over parsed). */
function webRequestOf(ctx: RouterContext): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(ctx.headers)) {
    if (v === undefined || k === 'content-length' || k === 'transfer-encoding' || k === 'connection') continue;
    headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  }
  return new Request(`http://${ctx.host || 'localhost'}${ctx.path}`, { method: 'POST', headers });
}

export function mcpRoutes(deps: McpRouteDeps): RouteDescriptor[] {
  return [
    route({
      method: 'POST',
      path: '/mcp',
      auth: 'apiKey',
      rateLimit: 'request',
      input: { in: 'body', schema: jsonRpcMessageSchema },
      doc: {
        tags: ['MCP'],
        operationId: 'mcp',
        summary: 'Model Context Protocol server (Streamable HTTP, stateless): tools render_chart, create_short_url, validate_config, list_chart_types',
        description:
          'One JSON-RPC message per POST, answered as application/json (send Accept: application/json, text/event-stream, as MCP clients do). Each POST takes one from the rate limit; a render_chart or create_short_url call counts as a generation (trial cap included). A bad chart is a tool result with isError true holding {error, detail} as the /v1 routes answer it. GET (a server-sent event stream) is not offered: 405.',
      },
      responses: {
        '200': { description: 'The JSON-RPC answer.', headers: rateLimitHeaders, content: { 'application/json': { schema: jsonRpcAnswer } } },
        '202': { description: 'A notification or response accepted (no body).', headers: rateLimitHeaders },
      },
      errors: {
        '400': { description: 'Not a JSON-RPC message, or a body over MAX_BODY_BYTES.', codes: ['invalid_input'], headers: rateLimitHeaders },
        '401': { description: 'Missing or invalid API key.', codes: ['unauthorized'] },
        '429': { description: 'Rate limit reached.', codes: ['rate_limit_exceeded'], headers: { ...retryAfter, ...rateLimitHeaders } },
        '503': { description: 'The server is receiving as many body bytes as it may (MAX_BODY_BYTES_IN_FLIGHT); retry after Retry-After seconds.', codes: ['service_unavailable'], headers: retryAfter },
      },
      handler: async (ctx, input) => {
        const engine = callerEngine(deps, callerOf(ctx));
        // a client gone before its answer: its render leaves the queue (as on /v1/chart)
        const server = createMcpServer(engine, deps.log, clientSignal(ctx));
        // stateless: a transport (and a server) per request, closed with it
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await server.connect(transport);
        try {
          const res = await transport.handleRequest(webRequestOf(ctx), { parsedBody: input });
          const body = Buffer.from(await res.arrayBuffer());
          // an empty answer (202) stays empty: Koa would otherwise write the status text (and a
          // null body set after the status would make it 204)
          ctx.body = body.length > 0 ? body : null;
          ctx.status = res.status;
          res.headers.forEach((value, name) => ctx.set(name, value));
        } finally {
          await server.close().catch(() => {});
        }
      },
    }),
  ];
}
