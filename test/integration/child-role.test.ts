// The gate and the page agree on which strings of a config are code: both read the one rule of
// src/chart/childRole.ts (the page through the build, scripts/vendor.mjs). The same generated
// configs, a function string that does not parse placed at a generated path, go to both: the
// gate (findBadFunctionString) refuses it exactly when the page, asked to revive functions, stops
// on it; at a data position (labels, dataset labels, data points) both leave it as text.
import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser } from '../../src/render/browser.js';
import { loadHarnessFiles, HARNESS_PAGES } from '../../src/render/harness.js';
import { PAGE_LIMITS } from '../../src/render/pageLimits.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { findBadFunctionString } from '../../src/chart/functionStrings.js';
import { childRole } from '../../src/chart/childRole.js';

const BAD = ['function (a) { return a + }', '(a) => a +'];
const KEYS = ['data', 'labels', 'datasets', 'label', 'options', 'plugins', 'title', 'text', 'x', 'callback', 0, 1];

/** A small deterministic generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A bar chart with `value` at `path` (numbers are array indexes, the rest object keys). */
function placed(path: Array<string | number>, value: string): Record<string, unknown> {
  const config: Record<string, unknown> = { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 's', data: [1, 2] }] } };
  let at: Record<string | number, unknown> = config;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      at[key] = value;
      return;
    }
    const next = path[i + 1];
    const want = typeof next === 'number' ? 'array' : 'object';
    const have = at[key];
    if (!(want === 'array' ? Array.isArray(have) : have !== null && typeof have === 'object' && !Array.isArray(have))) at[key] = want === 'array' ? [] : {};
    at = at[key] as Record<string | number, unknown>;
  });
  return config;
}

function cases(): Array<{ path: Array<string | number>; value: string }> {
  const next = random(50);
  const out: Array<{ path: Array<string | number>; value: string }> = [];
  // every path of the rule's own shape first, then random ones
  for (const path of [['data', 'labels', 0], ['data', 'datasets', 0, 'label'], ['data', 'datasets', 1, 'data', 0], ['data', 'datasets', 0, 'backgroundColor'], ['options', 'plugins', 'title', 'text'], ['data', 'x'], ['labels', 0], ['data', 'datasets', 0, 'data', 'x']] as Array<Array<string | number>>) {
    for (const value of BAD) out.push({ path, value });
  }
  while (out.length < 160) {
    const depth = 1 + Math.floor(next() * 5);
    const path: Array<string | number> = [];
    // half of them under data, where the data positions are
    for (let i = 0; i < depth; i++) path.push(i === 0 && next() < 0.5 ? 'data' : KEYS[Math.floor(next() * KEYS.length)]!);
    if (typeof path[0] === 'number') continue; // the root is an object
    out.push({ path, value: BAD[out.length % BAD.length]! });
  }
  return out;
}

/** What the rule says of the string at `path`: data (text) or possibly code. */
function roleAt(path: Array<string | number>) {
  return path.reduce<ReturnType<typeof childRole>>((role, key) => childRole(role, key), 'root');
}

describe('function strings: the gate and the page share one rule of what is data', function () {
  this.timeout(300_000);
  let lb: LaunchedBrowser;
  let page: Page;
  before(async () => {
    lb = await launchBrowser({ chromiumPath: loadConfig({}).chromiumPath }, createLogger('silent'));
    page = await lb.browser.newPage();
    await page.setContent(loadHarnessFiles().get(HARNESS_PAGES[4])!.body.toString('utf8'));
    await page.evaluate((l) => (window as unknown as { chartshot: { init(x: unknown): true } }).chartshot.init(l), PAGE_LIMITS as unknown as Record<string, number>);
  });
  after(async () => lb?.close());

  it('the page stops on a function string that does not parse exactly where the gate refuses it (160 generated placements)', async () => {
    let code = 0;
    let text = 0;
    for (const { path, value } of cases()) {
      const config = placed(path, value);
      const gate = findBadFunctionString(config as never);
      const answer = await page.evaluate(async (c) => {
        const a = await (window as unknown as { chartshot: { render(x: unknown): Promise<{ ok: boolean; error?: string }> } }).chartshot.render({ width: 60, height: 40, format: 'png', backgroundColor: '#fff', allowFunctions: true, watermark: null, config: c });
        return a.ok ? '' : (a.error ?? 'failed');
      }, config);
      const pageStopped = /does not parse/.test(answer);
      expect(pageStopped, `${path.join('.')} = ${value}: gate ${gate ?? 'passes'}, page ${answer || 'ok'}`).to.equal(gate !== null);
      expect(gate === null, `${path.join('.')}: the rule says ${roleAt(path)}`).to.equal(roleAt(path) === 'text');
      if (gate === null) text++;
      else code++;
    }
    // both kinds were generated
    expect(code).to.be.above(20);
    expect(text).to.be.above(10);
  });
});
