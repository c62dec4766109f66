// Caller code leaves nothing running: a callback that schedules work and returns (a timer, an
// interval, an animation frame, a message-port ping-pong, a microtask loop...) gets its render
// answered, and then nothing of it runs: the page answers at once, its reset never waits for a
// deadline, and the next render on it is byte-identical to a clean one. Under a trial key doing
// that at its rate limit, another account's renders all succeed. Each attack's callback would
// otherwise keep the page's main thread busy for a minute (found by an outside attack: the render
// answered 200 in 20 ms and the page stayed busy until its reset gave up at 10 s).
import { expect } from 'chai';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { apiKey, bytes } from '../helpers/client.js';
import type { RenderPage } from '../../src/render/page.js';
import type { PageRequest } from '../../src/render/wire.js';
import { LEFTOVERS, withTitleFn } from '../helpers/leftovers.js';
import { afterMs, settle } from '../../src/settle.js';
import { waitFor } from '../helpers/poll.js';

interface Answer {
  status: number;
  error?: string;
  body: Buffer;
  ms: number;
}

async function answer(res: Promise<Response>): Promise<Answer> {
  const t = performance.now();
  const r = await res;
  const body = await bytes(r);
  const out: Answer = { status: r.status, body, ms: performance.now() - t };
  if (r.status !== 200) out.error = (JSON.parse(body.toString('utf8')) as { error?: string }).error;
  return out;
}

/** Whether every live page answers a trivial evaluation within `ms` (a page still running a
 *  minute-long loop does not). */
async function allAnswer(pages: ReadonlySet<RenderPage>, ms: number): Promise<boolean> {
  const asks = [...pages].map((rp) =>
    settle(
      rp.cdp.send('Runtime.evaluate', { expression: '0' }).then(() => true, () => true),
      afterMs(ms, () => false),
    ).catch(() => false),
  );
  return (await Promise.all(asks)).every(Boolean);
}

describe('caller code leaves nothing running', function () {
  this.timeout(900000);

  describe('on a one-page pool', () => {
    // A reset waits min(15 s, RENDER_TIMEOUT_MS) for a page too busy to navigate before replacing
    // it (counted: resetsGivenUp); requests wait for a page as long as it takes (no 503 on a slow
    // machine), so a reset that gave up is what the next render would have waited for.
    let s: TestServer;
    let key: string;
    let clean: Buffer;
    const send = (chart: unknown) => answer(post(s.url, '/v1/chart', { chart, width: 400, height: 200 }, apiKey(key)));

    before(async () => {
      s = await startTestServer({ poolSize: 1, renderTimeoutMs: 20000, acquireTimeoutMs: 120000, pageMaxRenders: 100000 });
      key = (await s.account('growth')).api_key;
      const first = await send(BAR);
      expect(first.status).to.equal(200);
      clean = first.body;
    });
    after(async () => s?.stop());

    for (const [name, starts] of Object.entries(LEFTOVERS)) {
      it(`${name}: the render answers, nothing of it runs after, the next render is clean and never waits for the reset deadline`, async () => {
        const before = s.deps.pool.stats();
        const r = await send(withTitleFn(`${starts} return 'left';`));
        expect(r.status, `${r.error}`).to.equal(200);
        const next = await send(BAR);
        expect(next.status, `next render: ${next.error}`).to.equal(200);
        expect(next.body.equals(clean), 'the next render is byte-identical to a clean one').to.equal(true);
        const after = s.deps.pool.stats();
        expect(after.resetsGivenUp! - before.resetsGivenUp!, 'a reset gave up at its deadline: the next render waited for it').to.equal(0);
        expect(after.pageResets! - before.pageResets!, 'the page was reset').to.equal(1);
        // replaced only when it was still busy after being stopped
        const replaced = after.pagesDestroyed - before.pagesDestroyed;
        expect(replaced, 'replaced without having been found busy').to.be.at.most(after.busyAfterRender! - before.busyAfterRender!);
        expect(await allAnswer(s.deps.pool.livePages(), 5000), 'every page answers: nothing runs in it').to.equal(true);
      });
    }

    it('the render that left its page to be reset is charged the page time until the page is back; a render that ran no caller code is not', async () => {
      const released: number[] = [];
      const request = (config: Record<string, unknown>): PageRequest => ({
        config,
        width: 400,
        height: 200,
        format: 'png',
        backgroundColor: null,
        allowFunctions: true,
        watermark: null,
        onReleased: (ms) => released.push(ms),
      });
      const answered = performance.now();
      await s.deps.pool.render(request(withTitleFn(`${LEFTOVERS['an interval']} return 'left';`)));
      await waitFor('the page time to be charged', () => released.length > 0, { ms: 60000 });
      expect(released.length).to.equal(1);
      expect(released[0]).to.be.greaterThan(0).and.at.most(performance.now() - answered);
      // a plain render needs no reset: nothing to charge (the render after it proves its page is back)
      await s.deps.pool.render(request(BAR));
      await s.deps.pool.render({ ...request(BAR), onReleased: undefined });
      expect(released.length).to.equal(1);
    });

    it('a loop of promise continuations (which runs before the answer can leave) is stopped at the deadline; the page is reset, never left busy', async () => {
      // no scheduling API to cancel: V8 drains the microtasks before the render's answer is
      // sent, so the render never answers and is interrupted at its deadline (charged as one)
      const quick = await startTestServer({ poolSize: 1, renderTimeoutMs: 3000, acquireTimeoutMs: 120000, pageMaxRenders: 100000 });
      try {
        const k = (await quick.account('growth')).api_key;
        const sendQuick = (chart: unknown) => answer(post(quick.url, '/v1/chart', { chart, width: 400, height: 200 }, apiKey(k)));
        const ref = await sendQuick(BAR);
        expect(ref.status).to.equal(200);
        for (const loop of ['(function f(){ Promise.resolve().then(f); })();', '(async function(){ for (;;) await 0; })();']) {
          const r = await sendQuick(withTitleFn(`${loop} return 'left';`));
          expect(r.status, loop).to.equal(500);
          expect(r.error).to.equal('render_failed');
          const next = await sendQuick(BAR);
          expect(next.status, `after ${loop}: ${next.error}`).to.equal(200);
          expect(next.body.equals(ref.body)).to.equal(true);
          expect(await allAnswer(quick.deps.pool.livePages(), 5000)).to.equal(true);
        }
      } finally {
        await quick.stop();
      }
    });
  });

  describe("a trial key running such callbacks at its rate limit, beside another account's renders", () => {
    let s: TestServer;
    before(async () => {
      // the default deadlines: a page too busy to navigate was replaced after 10 s
      s = await startTestServer({ poolSize: 2, renderTimeoutMs: 10000 });
    });
    after(async () => s?.stop());

    it("fails none of the other account's renders, none waits for a reset's deadline, and every page is left idle", async () => {
      const trial = (await s.account('trial')).api_key;
      const enterprise = (await s.account('enterprise')).api_key;
      const kinds = ['a timer that never yields', 'an interval', 'an animation frame loop', 'a MessageChannel ping-pong', "an animation's finish", 'a timer loop'];
      const before = s.deps.pool.stats();
      let attacking = true;
      const victim: Answer[] = [];
      const victimLoop = (async () => {
        for (let i = 0; attacking; i++) {
          const chart = { ...BAR, data: { ...BAR.data, datasets: [{ label: 'Revenue', data: [12, 19, 3, i] }] } };
          victim.push(await answer(post(s.url, '/v1/chart', { chart, width: 400, height: 200 }, apiKey(enterprise))));
        }
      })();
      const attacks: Answer[] = [];
      // 10 a minute: the trial plan's rate
      for (const kind of kinds) {
        const started = performance.now();
        attacks.push(await answer(post(s.url, '/v1/chart', { chart: withTitleFn(`${LEFTOVERS[kind]} return 'left';`), width: 400, height: 200 }, apiKey(trial))));
        await new Promise((r) => setTimeout(r, Math.max(0, 6000 - (performance.now() - started))));
      }
      attacking = false;
      await victimLoop;
      const after = s.deps.pool.stats();
      expect(attacks.map((a) => a.status), 'the attacks themselves are answered').to.deep.equal(kinds.map(() => 200));
      const failed = victim.filter((v) => v.status !== 200);
      expect(failed.map((v) => `${v.status} ${v.error}`), `failed among ${victim.length}`).to.deep.equal([]);
      expect(after.resetsGivenUp! - before.resetsGivenUp!, "a reset gave up at its deadline: the other account's renders waited for it").to.equal(0);
      expect(victim.length).to.be.greaterThan(kinds.length);
      expect(after.pageResets! - before.pageResets!, 'every attack reset its page').to.be.at.least(kinds.length);
      expect(after.pagesDestroyed - before.pagesDestroyed, 'replaced only when found busy').to.be.at.most(after.busyAfterRender! - before.busyAfterRender!);
      expect(await allAnswer(s.deps.pool.livePages(), 5000), 'every page answers: nothing runs in it').to.equal(true);
    });
  });
});
