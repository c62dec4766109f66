// Structured JSON logs on stdout. Secrets never reach a log line: keys, tokens and
// signatures are redacted wherever they might appear.
import { pino, destination as pinoDestination, stdTimeFunctions, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config.js';

export type Logger = PinoLogger;

export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'chartshot' },
      timestamp: stdTimeFunctions.isoTime,
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'apiKey', 'api_key', 'sessionToken', 'secret', 'signingSecret'],
        censor: '[redacted]',
      },
    },
    destination ?? pinoDestination({ sync: false }),
  );
}

/** Removes credentials from a URL before it is logged. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:api_key|sig)=)[^&]*/gi, '$1[redacted]');
}
