// A lean HTTP/1.1 keep-alive client for load generation: one socket per worker, the request
// written as one string, the response framed by its Content-Length and not parsed further
// (status line and the headers the caller names). node:http's client spends ~0.7-1 ms of CPU
// per corpus render on this 2-core machine (its parser, streams and agent), CPU the server
// under test then does not get; wrk would spend a few µs, but cannot send a different body per
// request with a nonce and report each request's latency, which the honest bench needs. This
// does what wrk does for the requests the benches send. Responses must carry Content-Length
// (chartshot's and the bare server's do); chunked or unframed replies are errors, not guesses.
import net from 'node:net';

export interface RawReply {
  status: number;
  /** the body's bytes (content-length) */
  length: number;
  /** lower-cased header names to values, for the names asked for */
  headers: Record<string, string>;
  body?: Buffer;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** One keep-alive connection; requests go one at a time (no pipelining). */
export class RawConnection {
  private socket: net.Socket | null = null;
  private buf: Buffer = Buffer.alloc(0);
  private pending: { resolve: (r: RawReply) => void; reject: (e: Error) => void } | null = null;
  private head: { status: number; length: number; headers: Record<string, string> } | null = null;
  private chunks: Buffer[] = [];
  private got = 0;

  constructor(
    private readonly host: string,
    private readonly port: number,
    /** header names (lower case) whose values the reply carries */
    private readonly want: string[] = [],
    /** keep the body's bytes (false: count them only) */
    private readonly keepBody = false,
  ) {}

  private connect(): net.Socket {
    const s = net.connect({ host: this.host, port: this.port, noDelay: true });
    s.on('data', (d: Buffer) => {
      if (this.socket === s) this.onData(d);
    });
    const fail = (e: Error) => {
      if (this.socket !== s) return; // an earlier socket's late 'close'
      this.socket = null;
      this.buf = Buffer.alloc(0);
      this.head = null;
      const p = this.pending;
      this.pending = null;
      p?.reject(e);
    };
    s.on('error', fail);
    s.on('close', () => fail(new Error('connection closed')));
    this.socket = s;
    return s;
  }

  /** Sends `head` (request line and headers, ending in \r\n\r\n) and `body`; resolves with the reply. */
  send(head: string, body = ''): Promise<RawReply> {
    if (this.pending) return Promise.reject(new Error('one request at a time'));
    const s = this.socket ?? this.connect();
    return new Promise<RawReply>((resolve, reject) => {
      this.pending = { resolve, reject };
      s.write(body ? head + body : head);
    });
  }

  private onData(d: Buffer): void {
    if (!this.head) {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      const end = this.buf.indexOf(HEADER_END);
      if (end < 0) return;
      const text = this.buf.toString('latin1', 0, end);
      const lines = text.split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!)?.[1] ?? NaN);
      const headers: Record<string, string> = {};
      let length = -1;
      let close = false;
      for (let i = 1; i < lines.length; i++) {
        const line = lines[i]!;
        const c = line.indexOf(':');
        const name = line.slice(0, c).trim().toLowerCase();
        const value = line.slice(c + 1).trim();
        if (name === 'content-length') length = Number(value);
        else if (name === 'transfer-encoding') length = -2;
        else if (name === 'connection' && /close/i.test(value)) close = true;
        if (this.want.includes(name)) headers[name] = value;
      }
      if (!Number.isFinite(status) || length < 0 || close) {
        this.socket?.destroy(new Error(`unsupported reply framing: ${lines[0]} (content-length ${length}, close ${close})`));
        return;
      }
      this.head = { status, length, headers };
      this.chunks = [];
      this.got = 0;
      d = this.buf.subarray(end + 4);
      this.buf = Buffer.alloc(0);
    }
    const h = this.head;
    const need = h.length - this.got;
    const take = d.length > need ? d.subarray(0, need) : d;
    if (this.keepBody) this.chunks.push(take);
    this.got += take.length;
    if (d.length > need) {
      // nothing may follow a reply we did not ask for
      this.socket?.destroy(new Error('bytes after the reply'));
      return;
    }
    if (this.got < h.length) return;
    this.head = null;
    const p = this.pending;
    this.pending = null;
    p?.resolve({ status: h.status, length: h.length, headers: h.headers, ...(this.keepBody ? { body: Buffer.concat(this.chunks) } : {}) });
  }

  close(): void {
    this.socket?.removeAllListeners('close');
    this.socket?.destroy();
    this.socket = null;
  }
}

/** The request line and headers of a request, ready for RawConnection.send. */
export function requestHead(method: string, path: string, host: string, headers: Record<string, string>, body?: string): string {
  let h = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [k, v] of Object.entries(headers)) {
    if (body !== undefined && /^content-(type|length)$/i.test(k)) continue;
    h += `${k}: ${v}\r\n`;
  }
  if (body !== undefined) h += `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
  return h + '\r\n';
}
