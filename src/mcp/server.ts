// An MCP server (the official SDK's low-level Server) over an engine: lists the tools and answers
// their calls. Any failure of a call is a tool error (isError) carrying the HTTP API's error
// object {error, detail}; nothing a caller sends can throw out of a handler.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.js';
import { toAppError } from '../http/errors.js';
import { storeUnreachable } from '../store/errors.js';
import { CHARTJS_PAGES } from '../chart/chartjsPages.js';
import { parseChartjsVersion } from '../chart/quickchart.js';
import { checkArguments, TOOLS, TOOL_NAMES, type ChartArgs, type ToolName } from './tools.js';
import type { DrawnChart, McpEngine } from './engine.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const INSTRUCTIONS =
  'chartshot renders Chart.js configs in a real browser. render_chart returns the image; validate_config checks a config without drawing it; list_chart_types tells what each Chart.js version (2, 3, 4; 4 by default) draws here.';

const isTool = (name: string): name is ToolName => (TOOL_NAMES as readonly string[]).includes(name);

/** `gone`: aborts every call's work when the transport's client went away (HTTP). */
export function createMcpServer(engine: McpEngine, log: Logger, gone?: AbortSignal): Server {
  const server = new Server({ name: 'chartshot', version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const tools = TOOL_NAMES.filter((n) => engine.shortUrls || n !== 'create_short_url').map((n) => TOOLS[n]);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const name = req.params.name;
    // an unknown tool is a protocol error (the caller named nothing), not a tool's failure
    if (!isTool(name) || !tools.some((t) => t.name === name)) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${String(name).slice(0, 64)}`);
    try {
      return await call(engine, name, req.params.arguments, gone ? AbortSignal.any([extra.signal, gone]) : extra.signal);
    } catch (err) {
      return toolError(err, log, name);
    }
  });
  return server;
}

async function call(engine: McpEngine, name: ToolName, raw: unknown, signal: AbortSignal): Promise<CallToolResult> {
  if (name === 'validate_config') return validation(engine, raw);
  const args = checkArguments(name, raw, engine.plan) as ChartArgs;
  switch (name) {
    case 'render_chart':
      return drawn(await engine.render(args, signal));
    case 'create_short_url': {
      const chart = await engine.createShortUrl(args, signal);
      return { content: [{ type: 'text', text: JSON.stringify({ url: chart.url, id: chart.id }) }] };
    }
    case 'list_chart_types': {
      const major = args.version === undefined ? null : parseChartjsVersion(args.version, 4);
      const pages = CHARTJS_PAGES.filter((p) => major === null || p.major === major);
      return { content: [{ type: 'text', text: JSON.stringify({ versions: pages }) }] };
    }
  }
}

/** PNG: an image block. SVG: an embedded image/svg+xml resource holding the text (most model
 *  APIs take raster images only: docs/decisions/0018-mcp-server.md). Then a line saying what it is. */
function drawn(c: DrawnChart): CallToolResult {
  const r = c.request;
  const ratio = r.format === 'png' ? (r.devicePixelRatio ?? 1) : 1;
  const pixels = `${Math.floor(r.width * ratio)}x${Math.floor(r.height * ratio)}`;
  const about = `${r.format.toUpperCase()} ${r.width}x${r.height}${ratio !== 1 ? ` at devicePixelRatio ${ratio} (${pixels} pixels)` : ''}, Chart.js ${r.chartjs ?? 4}, ${c.body.length} bytes${c.url ? `\nshort URL: ${c.url}` : ''}`;
  const image: CallToolResult['content'][number] =
    r.format === 'svg'
      ? { type: 'resource', resource: { uri: c.url ?? 'chartshot:chart.svg', mimeType: c.contentType, text: c.body.toString('utf8') } }
      : { type: 'image', data: c.body.toString('base64'), mimeType: c.contentType };
  return { content: [image, { type: 'text', text: about }] };
}

/** The request a render would draw, or its error: a finding, not the tool's failure. */
function validation(engine: McpEngine, raw: unknown): CallToolResult {
  let body: object;
  try {
    const r = engine.request(checkArguments('validate_config', raw, engine.plan) as ChartArgs);
    body = {
      valid: true,
      width: r.width,
      height: r.height,
      format: r.format,
      chartjs: r.chartjs ?? 4,
      devicePixelRatio: r.devicePixelRatio ?? 1,
      backgroundColor: r.backgroundColor,
      timezone: r.timezone ?? engine.zone.timezone,
      locale: r.locale ?? engine.zone.locale,
      functions: r.allowFunctions,
      ...(r.configJs !== undefined ? { javascript: true } : {}),
    };
  } catch (err) {
    const e = toAppError(err);
    if (e.status >= 500) throw err;
    body = { valid: false, error: e.code, ...(e.detail ? { detail: e.detail } : {}) };
  }
  return { content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** A failed call as the HTTP API answers it: {error, detail} (+ retry_after_s), isError set. */
function toolError(err: unknown, log: Logger, tool: ToolName): CallToolResult {
  const e = toAppError(err);
  // the store away is logged once by the store (store/reachability.ts), not once per call
  if (e.status >= 500 && !storeUnreachable(err)) log.error({ err, tool }, 'MCP tool call failed');
  const retry = e.headers['Retry-After'];
  const body = { error: e.code, ...(e.detail ? { detail: e.detail } : {}), ...(retry ? { retry_after_s: Number(retry) } : {}) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}
