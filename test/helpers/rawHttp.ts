// HTTP/1.1 over a raw socket, for what fetch hides: answers that arrive before the body was
// sent, bodies sent whole before reading (Python's urllib, curl -H 'Expect:'), stalled bodies,
// and whether the server closed the connection.
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawConnection {
  sock: Socket;
  /** The first answer, once its head and Content-Length bytes have arrived (rejects if the connection closes first). */
  answer: Promise<RawAnswer>;
  /** Resolves when the connection is closed, with the error the client saw, if any (e.g. ECONNRESET). */
  closed: Promise<{ error: string | null }>;
  /** Writes `data` and resolves once the kernel took all of it (false: the connection ended first). */
  write(data: Buffer | string): Promise<boolean>;
}

export function rawConnect(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(port), hostname);
    let buf = Buffer.alloc(0);
    let error: string | null = null;
    let settle: ((a: RawAnswer) => void) | null = null;
    let fail: ((e: Error) => void) | null = null;
    const answer = new Promise<RawAnswer>((res, rej) => {
      settle = res;
      fail = rej;
    });
    answer.catch(() => {});
    const closed = new Promise<{ error: string | null }>((res) => sock.once('close', () => res({ error })));
    const tryParse = () => {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0 || !settle) return;
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0]!)?.[1]);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (buf.length - end - 4 < length) return;
      const body = buf.subarray(end + 4, end + 4 + length).toString('utf8');
      settle({ status, headers, body });
      settle = null;
    };
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      tryParse();
    });
    sock.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    sock.once('close', () => fail?.(new Error(`closed before an answer (${error ?? 'no error'}); got ${JSON.stringify(buf.toString('latin1').slice(0, 200))}`)));
    sock.once('connect', () =>
      resolve({
        sock,
        answer,
        closed,
        write: (data) =>
          new Promise<boolean>((res) => {
            if (sock.destroyed || !sock.writable) return res(false);
            sock.write(data, (err) => res(!err));
          }),
      }),
    );
    sock.once('error', reject);
  });
}

/** A request head; `length`: the Content-Length declared. */
export function head(method: string, path: string, headers: Record<string, string | number>): string {
  return `${method} ${path} HTTP/1.1\r\nHost: test\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
}
