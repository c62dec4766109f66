// The caller classes' deadlines and budgets (src/render/budgets.ts) and their settings.
import { expect } from 'chai';
import { PAGE_BUDGETS, classOfPlan, deadlinesFor } from '../../src/render/budgets.js';
import { loadConfig } from '../../src/config.js';

describe('render budgets per caller class', () => {
  it('deadlines: anonymous 1 s, trial 3 s, paid RENDER_TIMEOUT_MS; none longer than RENDER_TIMEOUT_MS', () => {
    expect(deadlinesFor(10_000)).to.deep.equal({ anonymous: 1000, trial: 3000, paid: 10_000 });
    expect(deadlinesFor(2000)).to.deep.equal({ anonymous: 1000, trial: 2000, paid: 2000 });
    expect(deadlinesFor(500, 800, 4000)).to.deep.equal({ anonymous: 500, trial: 500, paid: 500 });
  });

  it('ANONYMOUS_RENDER_TIMEOUT_MS and TRIAL_RENDER_TIMEOUT_MS are read, bounded and refused when bad', () => {
    const c = loadConfig({ ANONYMOUS_RENDER_TIMEOUT_MS: '1500', TRIAL_RENDER_TIMEOUT_MS: '2500' });
    expect([c.anonymousRenderTimeoutMs, c.trialRenderTimeoutMs]).to.deep.equal([1500, 2500]);
    const d = loadConfig({});
    expect([d.anonymousRenderTimeoutMs, d.trialRenderTimeoutMs]).to.deep.equal([1000, 3000]);
    expect(() => loadConfig({ ANONYMOUS_RENDER_TIMEOUT_MS: '10' })).to.throw(/ANONYMOUS_RENDER_TIMEOUT_MS/);
    expect(() => loadConfig({ TRIAL_RENDER_TIMEOUT_MS: 'soon' })).to.throw(/TRIAL_RENDER_TIMEOUT_MS/);
  });

  it('a trial plan renders as trial, every other plan as paid; budgets grow with the class', () => {
    expect(classOfPlan('trial')).to.equal('trial');
    for (const p of ['starter', 'growth', 'enterprise']) expect(classOfPlan(p)).to.equal('paid');
    const { anonymous, trial, paid } = PAGE_BUDGETS;
    expect(anonymous.ticks).to.be.below(trial.ticks).and.below(paid.ticks);
    expect(anonymous.elements).to.be.below(trial.elements).and.below(paid.elements);
    // Chart.js's own ceiling of a time axis: no class may build more
    expect(paid.ticks).to.be.at.most(100_000);
    for (const b of [anonymous, trial, paid]) expect(b.logDecades).to.equal(100);
  });
});
