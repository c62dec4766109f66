// What the harness finds on the page when it loads (the scripts before it in harness*.html),
// for the type check of its modules (tsconfig.page.json). Never loaded by the page.
// The harness modules share one scope once assembled (scripts/vendor.mjs): for the checker they
// are global scripts, so their top-level names are visible to each other as they are at run time.
interface Window {
  Chart: any;
  ChartDataLabels: any;
  ChartshotV2Plugins: any;
  ChartshotQuickChart: any;
  ChartshotBudgets: any;
  ChartshotSvgContext: any;
  ChartshotSerializeSvg: any;
  ChartshotIsPure: (params: string, body: string, expression: boolean) => boolean;
  ChartshotAllocGuard: any;
  ChartshotTaskGuard: any;
  ChartshotImages: any;
  /** renderer-page/state.js: the bundles' module-level state, sealed at load, restored per render. */
  ChartshotModuleState: { seal(): number; restore(): boolean; list(): Array<{ id: string; treat: string; get(): unknown }> } | undefined;
  __chartshotState: unknown;
}
interface Uint8ArrayConstructor {
  /** Chromium 140 on; older pages fall back to atob. */
  fromBase64?: (b64: string) => Uint8Array;
}

/** A request as the page reads it: PageRequest (renderer-page/protocol.d.ts), each way of
 *  sending the config optional, since the page checks which one came (and every field). */
type PageRequestIn = import('../protocol').PageOptions & { configJson?: string; configDeflated?: string; config?: unknown };

/** The answer as renderText builds it, field by field, on an object without a prototype. */
type PageAnswerDraft = { ok: boolean } & Partial<Omit<import('../protocol').PageResult, 'ok'>> & Partial<Omit<import('../protocol').PageFailure, 'ok'>>;

/** src/chart/childRole.ts, put before the harness modules by scripts/vendor.mjs: where a string
 *  of a config is data, never code (the gate's rule). */
declare function childRole(role: import('../../src/chart/childRole').Role, key: string | number): import('../../src/chart/childRole').Role;
