// renderer-page/pure.js: which function strings may skip the page reset. Only
// functions that can read, compute and return are pure; every way to change state, reach a
// global or run code the parser does not see is impure. The file is browser JS, run here in a
// vm context of its own.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createContext, runInContext } from 'node:vm';

type IsPure = (params: string, body: string, expression: boolean) => boolean;
const sandbox: { ChartshotIsPure?: IsPure } = {};
createContext(sandbox);
runInContext(readFileSync(new URL('../../renderer-page/pure.js', import.meta.url), 'utf8'), sandbox);
const isPure = sandbox.ChartshotIsPure!;

describe('pure callbacks (renderer-page/pure.js)', () => {
  it('accepts the formatters, scriptable colours and filters real configs carry', () => {
    const pure: Array<[string, string, boolean]> = [
      ['value', "return '$' + value;", false],
      ['v, i, values', "return v.toLocaleString() + ' km';", false],
      ['value', "return value >= 1000 ? (value / 1000).toFixed(1) + 'k' : value;", false],
      ['ctx', "ctx.raw > 10 ? 'rgba(255, 0, 0, 0.5)' : '#36a2eb'", true],
      ['item', 'return item.datasetIndex !== 1;', false],
      ['item, data', 'return item.text.indexOf("Hidden") === -1', false],
      ['v', "var p = Math.round(v * 100) / 100; if (p < 0) return '-' + String(-p); return Number.isInteger(p) ? p + '%' : p.toFixed(2) + '%';", false],
      ['ctx', "const i = ctx.dataIndex; return i % 2 === 0 ? 'red' : 'blue';", false],
      ['label', "typeof label === 'string' ? label.slice(0, 10).toUpperCase() : label", true],
      ['', "return 'static';", false],
      ['item, data', 'return data.datasets[0].data[item.index] >= 5;', false],
      ['items', "items[0].label + ' \u{1F4CD} €'", true],
      ['ctx', "return ctx['chart'].width;", false],
    ];
    for (const [params, body, expr] of pure) expect(isPure(params, body, expr), body).to.equal(true);
  });

  it('refuses anything that could change state or escape the grammar', () => {
    const impure: Array<[string, string, boolean]> = [
      ['v', 'v.x = 1; return v;', false],
      ['v', 'return v.x = 1;', false],
      ['v', 'return v.count-- - 0;', false],
      ['v', 'return v.count++;', false],
      ['v', 'return --v.count;', false],
      ['v', 'return v <!-- comment\n;', false],
      ['v', 'return v\n--> comment', false],
      ['v', 'return v.x += 1;', false],
      ['v', 'return v.x ||= 1;', false],
      ['ctx', "Chart.register({ id: 'x' }); return 'x';", false],
      ['ctx', 'return window.name;', false],
      ['ctx', 'return globalThis;', false],
      ['ctx', 'return this;', false],
      ['ctx', 'return arguments[0];', false],
      ['ctx', "return ctx.chart.update('none');", false],
      ['ctx', 'return ctx.chart.ctx.canvas.ownerDocument.defaultView.location.replace("about:blank");', false],
      ['ctx', 'return ctx.constructor.constructor("return 1")();', false],
      ['ctx', 'return ctx.__proto__;', false],
      ['ctx', "return ctx['constructor']['constructor']('return 1')();", false],
      ['ctx', "return ctx['chart']['update']();", false],
      ['ctx', 'return [ctx];', false],
      ['ctx', 'return ctx[0] = 1;', false],
      ['ctx', 'return new Date(ctx);', false],
      ['ctx', 'return (ctx.chart.toString)();', false],
      ['ctx', 'return `x${ctx}`;', false],
      ['ctx', 'return /x/.test(ctx);', false],
      ['ctx', 'return (function () { return 1; })();', false],
      ['ctx', 'return ctx => 1;', false],
      ['ctx', 'while (true) {} return 1;', false],
      ['ctx', 'return setTimeout("1");', false],
      ['ctx', 'return eval("1");', false],
      ['ctx', 'return \\u0061;', false],
      ['ctx', "return 'a\\\nb';", false],
      ['ctx', 'return {};', false],
      ['ctx', 'return 1, ctx.x();', false],
      ['ctx', 'return ctx.a; ctx.b = 1;', false],
      ['ctx', 'var a = 1, b = ctx.f(); return a;', false],
      ['ctx', 'return ctx.x; }; { window.x = 1', false],
      ['{a}', 'return a;', false],
      ['a = window.x', 'return a;', false],
      ['...a', 'return a;', false],
      ['ctx', 'return console.log(ctx);', false],
      ['ctx', "return ctx.chart.ctx.canvas.ownerDocument.defaultView.localStorage.setItem('k', 'v');", false],
      ['ctx', 'if (ctx) return 1; else return 2;', false],
      ['ctx', 'return ctx?.x;', false],
      ['ctx', 'return 1n;', false],
    ];
    for (const [params, body, expr] of impure) expect(isPure(params, body, expr), body).to.equal(false);
  });

  it('refuses very long bodies instead of parsing them', () => {
    expect(isPure('v', 'return ' + 'v + '.repeat(1000) + 'v;', false)).to.equal(false);
  });
});
