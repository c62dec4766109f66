// The Chrome DevTools Protocol's binary form, as Chromium speaks it on --remote-debugging-pipe=cbor
// (its crdtp library): every message is an envelope (tag 24, a byte string with a 32-bit length)
// around an indefinite-length map; maps inside are enveloped too, arrays are indefinite-length;
// strings are UTF-8 text or, from Chromium, UTF-16LE byte strings; a protocol `binary` value is a
// byte string tagged 22 (JSON shows it as base64); integers fit 32 bits, other numbers are
// doubles. Over this pipe the browser process passes messages on as they are, instead of
// translating each between JSON and CBOR (docs/performance.md: a call carrying
// 60,000 characters each way cost the browser process 1.27 ms as JSON, 0.39 ms as CBOR).

/** Thrown for bytes that are not a message this decoder knows: the pipe is then unusable. */
export class CborError extends Error {
  constructor(message: string) {
    super(`CDP CBOR: ${message}`);
    this.name = 'CborError';
  }
}

const ENVELOPE = [0xd8, 0x18, 0x5a];
/** An envelope's header: tag 24, then a byte string's head with a 4-byte length. */
export const ENVELOPE_HEADER_BYTES = 7;

/** Bytes written into one growing buffer: a message is encoded without a Buffer per value. */
class Writer {
  buf = Buffer.allocUnsafe(1024);
  at = 0;

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
  }

  /** A major type and its argument (a length or an unsigned integer under 2^32). */
  head(major: number, n: number): void {
    const m = major << 5;
    this.room(5);
    const b = this.buf;
    if (n < 24) b[this.at++] = m | n;
    else if (n < 0x100) {
      b[this.at++] = m | 24;
      b[this.at++] = n;
    } else if (n < 0x10000) {
      b[this.at++] = m | 25;
      b.writeUInt16BE(n, this.at);
      this.at += 2;
    } else {
      b[this.at++] = m | 26;
      b.writeUInt32BE(n, this.at);
      this.at += 4;
    }
  }

  /** A UTF-8 text string: its head takes the length's shortest form, as before the text. */
  text(s: string): void {
    if (s.length < 64 && this.ascii(s)) return;
    const n = Buffer.byteLength(s, 'utf8');
    this.head(3, n);
    this.room(n);
    this.at += this.buf.write(s, this.at, n, 'utf8');
  }

  /** A short string (keys, names, ids) written here when it is all ASCII; false when it is not. */
  private ascii(s: string): boolean {
    const n = s.length;
    this.room(2 + n);
    const b = this.buf;
    let at = this.at + (n < 24 ? 1 : 2);
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) return false;
      b[at++] = c;
    }
    if (n < 24) b[this.at] = 0x60 | n;
    else {
      b[this.at] = 0x78;
      b[this.at + 1] = n;
    }
    this.at = at;
    return true;
  }

  double(v: number): void {
    this.room(9);
    this.buf[this.at] = 0xfb;
    this.buf.writeDoubleBE(v, this.at + 1);
    this.at += 9;
  }

  /** An envelope's header with its length left for close() to fill in. */
  open(): number {
    this.room(ENVELOPE_HEADER_BYTES);
    const at = this.at;
    this.buf[at] = ENVELOPE[0]!;
    this.buf[at + 1] = ENVELOPE[1]!;
    this.buf[at + 2] = ENVELOPE[2]!;
    this.at += ENVELOPE_HEADER_BYTES;
    return at;
  }

  close(envelope: number): void {
    this.buf.writeUInt32BE(this.at - envelope - ENVELOPE_HEADER_BYTES, envelope + 3);
  }
}

function encodeValue(v: unknown, w: Writer): void {
  if (typeof v === 'string') w.text(v);
  else if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= 0 && v <= 0x7fffffff) w.head(0, v);
    else if (Number.isInteger(v) && v < 0 && v >= -0x80000000) w.head(1, -1 - v);
    else w.double(v);
  } else if (typeof v === 'boolean') w.byte(v ? 0xf5 : 0xf4);
  else if (v === null || v === undefined) w.byte(0xf6);
  else if (Array.isArray(v)) {
    w.byte(0x9f);
    for (const x of v) encodeValue(x === undefined ? null : x, w);
    w.byte(0xff);
  } else if (typeof v === 'object') {
    const envelope = w.open();
    w.byte(0xbf);
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined) continue;
      w.text(k);
      encodeValue(x, w);
    }
    w.byte(0xff);
    w.close(envelope);
  } else {
    throw new CborError(`cannot encode a ${typeof v}`);
  }
}

/** A protocol message (an object, as JSON.parse gives it) as the bytes Chromium reads. */
export function encodeMessage(message: Record<string, unknown>): Buffer {
  const w = new Writer();
  encodeValue(message, w);
  return w.buf.subarray(0, w.at);
}

/**
 * The length of the message at the start of `buf` (an envelope), or 0 while its header is not
 * all there yet.
 */
export function messageLength(buf: Buffer): number {
  if (buf.length < ENVELOPE_HEADER_BYTES) return 0;
  if (buf[0] !== ENVELOPE[0] || buf[1] !== ENVELOPE[1] || buf[2] !== ENVELOPE[2]) throw new CborError('a message does not start with an envelope');
  return ENVELOPE_HEADER_BYTES + buf.readUInt32BE(3);
}

class Reader {
  at = 0;
  constructor(private readonly b: Buffer) {}

  private need(n: number): void {
    if (this.at + n > this.b.length) throw new CborError('a message ends in the middle of a value');
  }

  private u8(): number {
    this.need(1);
    return this.b[this.at++]!;
  }

  /** The argument of an initial byte's additional information. */
  private argument(info: number): number {
    if (info < 24) return info;
    let n: number;
    if (info === 24) {
      n = this.u8();
    } else if (info === 25) {
      this.need(2);
      n = this.b.readUInt16BE(this.at);
      this.at += 2;
    } else if (info === 26) {
      this.need(4);
      n = this.b.readUInt32BE(this.at);
      this.at += 4;
    } else if (info === 27) {
      this.need(8);
      n = Number(this.b.readBigUInt64BE(this.at));
      this.at += 8;
    } else {
      throw new CborError(`additional information ${info} is not handled`);
    }
    return n;
  }

  private slice(n: number): [number, number] {
    this.need(n);
    const from = this.at;
    this.at += n;
    return [from, this.at];
  }

  value(): unknown {
    const first = this.u8();
    const major = first >> 5;
    const info = first & 31;
    switch (major) {
      case 0:
        return this.argument(info);
      case 1:
        return -1 - this.argument(info);
      case 2: {
        // a string of Chromium's in UTF-16 (crdtp's STRING16)
        const [from, to] = this.slice(this.argument(info));
        if ((to - from) % 2 !== 0) throw new CborError('a UTF-16 string of an odd length');
        return this.b.toString('utf16le', from, to);
      }
      case 3: {
        const [from, to] = this.slice(this.argument(info));
        return this.b.toString('utf8', from, to);
      }
      case 4: {
        const out: unknown[] = [];
        if (info === 31) {
          while (this.peek() !== 0xff) out.push(this.value());
          this.at++;
        } else {
          for (let n = this.argument(info); n > 0; n--) out.push(this.value());
        }
        return out;
      }
      case 5: {
        const out: Record<string, unknown> = {};
        const entry = () => {
          const k = this.value();
          if (typeof k !== 'string') throw new CborError('a map key that is not a string');
          // own data properties only: a key named __proto__ must not set the prototype
          Object.defineProperty(out, k, { value: this.value(), enumerable: true, writable: true, configurable: true });
        };
        if (info === 31) {
          while (this.peek() !== 0xff) entry();
          this.at++;
        } else {
          for (let n = this.argument(info); n > 0; n--) entry();
        }
        return out;
      }
      case 6: {
        const tag = this.argument(info);
        if (tag === 24) {
          // an envelope: a byte string whose content is the value
          const head = this.u8();
          if (head >> 5 !== 2) throw new CborError('an envelope without a byte string');
          const length = this.argument(head & 31);
          const end = this.at + length;
          const v = this.value();
          if (this.at !== end) throw new CborError('an envelope whose length does not match its content');
          return v;
        }
        if (tag === 22) {
          // protocol binary: JSON shows it as base64
          const head = this.u8();
          if (head >> 5 !== 2) throw new CborError('a binary tag without a byte string');
          const [from, to] = this.slice(this.argument(head & 31));
          return this.b.toString('base64', from, to);
        }
        throw new CborError(`tag ${tag} is not handled`);
      }
      default: {
        if (first === 0xf4) return false;
        if (first === 0xf5) return true;
        if (first === 0xf6 || first === 0xf7) return null;
        if (first === 0xfb) {
          this.need(8);
          const d = this.b.readDoubleBE(this.at);
          this.at += 8;
          return d;
        }
        if (first === 0xfa) {
          this.need(4);
          const f = this.b.readFloatBE(this.at);
          this.at += 4;
          return f;
        }
        throw new CborError(`initial byte 0x${first.toString(16)} is not handled`);
      }
    }
  }

  peek(): number {
    this.need(1);
    return this.b[this.at]!;
  }
}

/** One whole message (messageLength(buf) bytes) as the object JSON.parse would give for it. */
export function decodeMessage(buf: Buffer): Record<string, unknown> {
  const r = new Reader(buf);
  const v = r.value();
  if (r.at !== buf.length) throw new CborError('bytes after the message');
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new CborError('a message that is not a map');
  return v as Record<string, unknown>;
}
