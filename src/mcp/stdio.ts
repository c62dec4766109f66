// `chartshot mcp`: the MCP server over stdio, drawing in a pool of its own (no HTTP server, no
// store), as `chartshot render` does. stdout carries the protocol only: logs go to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Config } from '../config.js';
import { createLogger } from '../log.js';
import { startPool } from '../render/renderer.js';
import { RenderService } from '../services/render.js';
import { localEngine } from './engine.js';
import { createMcpServer } from './server.js';

export async function runMcpStdio(config: Config): Promise<void> {
  const log = createLogger(config.logLevel, process.stderr);
  const pool = await startPool(config, log);
  const server = createMcpServer(localEngine(new RenderService(pool)), log);
  let closing = false;
  const close = (why: string) => {
    if (closing) return;
    closing = true;
    log.info({ why }, 'MCP server closing');
    Promise.allSettled([server.close(), pool.close()]).then(() => process.exit(0));
  };
  // the client closing stdin is the end of the session
  process.stdin.once('end', () => close('stdin closed'));
  process.once('SIGTERM', () => close('SIGTERM'));
  process.once('SIGINT', () => close('SIGINT'));
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled promise rejection (logged, still serving)'));
  await server.connect(new StdioServerTransport());
}
