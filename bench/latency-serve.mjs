// The real server of a built checkout (`chartshot serve`, Chromium and all) with timestamps taken
// at six points of each request, for bench/latency-split.ts: node:http's 'request' event (the
// head parsed), the render handed to the Renderer, the Renderer's answer (with the page's own
// time, `ms`), and res.end() returning (the answer written to the socket); and on the pipe to
// Chromium, the first write after a render was handed over (the call sent) and the first bytes
// read after it (the answer's first chunk). Nothing else changes.
//   node bench/latency-serve.mjs <checkout>   (environment as `chartshot serve` reads it, plus
//   LATENCY_OUT: the file the events are written to on SIGTERM; SIGUSR2 forgets those so far)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFileSync } from 'node:fs';
import http from 'node:http';

const dir = resolve(process.argv[2] ?? '.');
const load = (p) => import(pathToFileURL(`${dir}/dist/${p}`).href);
/** [kind, performance.now(), the page's ms (answers only)] in the order they happened */
const events = [];
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (name, ...args) {
  if (name === 'request') events.push(['request', performance.now()]);
  return emit.call(this, name, ...args);
};
const end = http.ServerResponse.prototype.end;
http.ServerResponse.prototype.end = function (...args) {
  const r = end.apply(this, args);
  events.push(['end', performance.now()]);
  return r;
};
const { Renderer } = await load('render/renderer.js');
const render = Renderer.prototype.render;
Renderer.prototype.render = function (...args) {
  events.push(['render', performance.now()]);
  return render.apply(this, args).then((r) => {
    events.push(['answer', performance.now(), r.ms]);
    return r;
  });
};
const { CdpPipe } = await load('render/cdpPipe.js');
const receive = CdpPipe.prototype.receive;
const wrapped = new WeakSet();
CdpPipe.prototype.receive = function (chunk) {
  if (events.at(-1)?.[0] === 'sent') events.push(['received', performance.now()]);
  if (!wrapped.has(this.out)) {
    // the pipe's own write, once: the first write after a render is its call
    wrapped.add(this.out);
    const write = this.out.write;
    this.out.write = function (...args) {
      if (events.at(-1)?.[0] === 'render') events.push(['sent', performance.now()]);
      return write.apply(this, args);
    };
  }
  return receive.call(this, chunk);
};
const { loadConfig } = await load('config.js');
const { startServer } = await load('main.js');
const running = await startServer(loadConfig(process.env), {});
process.on('SIGUSR2', () => {
  events.length = 0;
});
process.on('SIGTERM', () => {
  writeFileSync(process.env.LATENCY_OUT, JSON.stringify(events));
  running.close().then(() => process.exit(0));
});
