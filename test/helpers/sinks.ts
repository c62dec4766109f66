// Listeners that record what reached them, for tests of "the page reaches no network". "Nothing
// came" is proved by a marker of the test's own sent after the moment has passed (the page was
// reset): a listener accepts connections in order and a socket queues datagrams in order, so once
// the marker is in, anything the page sent before it is in too. No fixed wait.
import { EventEmitter, once } from 'node:events';
import { connect, createServer } from 'node:net';
import { createSocket } from 'node:dgram';

export interface Sink {
  port: number;
  /** Sends the marker, waits for it, closes the listener; returns what arrived other than the marker. */
  settle(): Promise<string[]>;
}

/** TCP on 127.0.0.1; what arrived is each connection's remote port. */
export async function tcpSink(): Promise<Sink> {
  const accepted: number[] = [];
  const arrivals = new EventEmitter();
  const server = createServer((sock) => {
    accepted.push(sock.remotePort!);
    arrivals.emit('arrival');
    sock.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    async settle() {
      const marker = connect(port, '127.0.0.1').on('error', () => {});
      await once(marker, 'connect');
      const markerPort = marker.localPort!;
      marker.end();
      while (!accepted.includes(markerPort)) await once(arrivals, 'arrival');
      server.close();
      return accepted.filter((p) => p !== markerPort).map(String);
    },
  };
}

/** UDP on 127.0.0.1; what arrived is each datagram's text. */
export async function udpSink(): Promise<Sink> {
  const datagrams: string[] = [];
  const arrivals = new EventEmitter();
  const socket = createSocket('udp4');
  socket.on('message', (msg) => {
    datagrams.push(msg.toString('latin1'));
    arrivals.emit('arrival');
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  const port = socket.address().port;
  return {
    port,
    async settle() {
      const marker = `chartshot-test-marker-${process.pid}-${Date.now()}`;
      const sender = createSocket('udp4');
      await new Promise<void>((r, j) => sender.send(marker, port, '127.0.0.1', (err) => (err ? j(err) : r())));
      sender.close();
      while (!datagrams.includes(marker)) await once(arrivals, 'arrival');
      socket.close();
      return datagrams.filter((d) => d !== marker);
    },
  };
}

/** Waits until every page of the pool is back and idle: pages that ran caller code are reset first,
 *  or replaced when the reset gives up (a new page loads for seconds on a loaded machine). */
export async function poolIdle(stats: () => { size: number; available: number; borrowed: number }): Promise<void> {
  const deadline = Date.now() + 60_000; // a bound for a loaded machine, not a speed claim
  while (Date.now() < deadline) {
    const s = stats();
    if (s.borrowed === 0 && s.available >= s.size) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the pool did not become idle within 60 s: ${JSON.stringify(stats())}`);
}
