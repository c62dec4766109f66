// Callbacks that schedule work and return (test/integration/leftovers.test.ts, bench/neighbour.ts):
// each would keep a page's main thread busy for a minute after its render answered.
import { BAR } from './server.js';

/** Keeps the main thread busy for a minute: longer than any deadline here. */
const BUSY = 'var t = Date.now(); while (Date.now() - t < 60000) {}';

/** A config whose title is computed by `body` (which returns the title). */
export function withTitleFn(body: string): Record<string, unknown> {
  return { type: 'bar', data: BAR.data, options: { plugins: { title: { display: true, text: `function(ctx){ ${body} }` } } } };
}

/** What each callback starts before it returns its title. */
export const LEFTOVERS: Record<string, string> = {
  'a timer that never yields': `setTimeout(function(){ ${BUSY} }, 0);`,
  'a timer loop': `(function f(){ setTimeout(function(){ ${BUSY}; f(); }, 0); })();`,
  'an interval': `setInterval(function(){ ${BUSY} }, 1);`,
  'an animation frame loop': `(function f(){ requestAnimationFrame(function(){ ${BUSY}; f(); }); })();`,
  'an idle callback': `requestIdleCallback(function(){ ${BUSY} });`,
  'a MessageChannel ping-pong': `var c = new MessageChannel(); c.port1.onmessage = function(){ ${BUSY}; c.port2.postMessage(0); }; c.port2.postMessage(0);`,
  'a window.postMessage loop': `window.addEventListener('message', function(){ ${BUSY}; window.postMessage(0, '*'); }); window.postMessage(0, '*');`,
  'a queueMicrotask loop': `(function f(){ queueMicrotask(f); })();`,
  'a scheduled task': `scheduler.postTask(function(){ ${BUSY} }, { delay: 1 });`,
  'an AbortSignal.timeout': `AbortSignal.timeout(1).onabort = function(){ ${BUSY} };`,
  "an animation's finish": `document.body.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 200 }).onfinish = function(){ ${BUSY} };`,
  'a timer made in an iframe': `var f = document.createElement('iframe'); document.body.appendChild(f); f.contentWindow.setTimeout(function(){ ${BUSY} }, 0);`,
  "a busy image onload (the page cannot cancel it: stopped from outside)": `var i = new Image(); i.onload = function(){ ${BUSY} }; i.src = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';`,
};
