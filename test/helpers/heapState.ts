// The closure state of a page, read from two V8 heap snapshots: every variable of a context
// (a scope captured by closures) that existed at the first snapshot whose value changed by the
// second. Module-level state of a script (a bundle's caches, counters, registries) lives in such
// contexts; a variable a render changed is state that render left for the next one unless the
// page restores it (docs/decisions/0034-page-state-by-construction.md). Test-only: a snapshot of a
// renderer page takes a few seconds.
import type { CDPSession } from 'puppeteer-core';

interface Snapshot {
  nodeFields: string[];
  edgeFields: string[];
  nodeTypes: string[];
  edgeTypes: string[];
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface HeapGraph {
  /** node id -> node index (into nodes / nodeFieldCount) */
  byId: Map<number, number>;
  snap: Snapshot;
  firstEdge: Int32Array;
}

/** Takes a heap snapshot of the page (after a full collection). */
export async function takeHeap(cdp: CDPSession): Promise<HeapGraph> {
  const chunks: string[] = [];
  const onChunk = (e: { chunk: string }) => chunks.push(e.chunk);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
  try {
    await cdp.send('HeapProfiler.enable');
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false, captureNumericValue: true } as never);
  } finally {
    cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
  }
  const raw = JSON.parse(chunks.join('')) as { snapshot: { meta: { node_fields: string[]; edge_fields: string[]; node_types: [string[]]; edge_types: [string[]] } }; nodes: number[]; edges: number[]; strings: string[] };
  const meta = raw.snapshot.meta;
  const snap: Snapshot = {
    nodeFields: meta.node_fields,
    edgeFields: meta.edge_fields,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    nodes: raw.nodes,
    edges: raw.edges,
    strings: raw.strings,
  };
  const nf = snap.nodeFields.length;
  const count = snap.nodes.length / nf;
  const byId = new Map<number, number>();
  const firstEdge = new Int32Array(count + 1);
  const idAt = snap.nodeFields.indexOf('id');
  const ecAt = snap.nodeFields.indexOf('edge_count');
  let e = 0;
  for (let i = 0; i < count; i++) {
    byId.set(snap.nodes[i * nf + idAt]!, i);
    firstEdge[i] = e;
    e += snap.nodes[i * nf + ecAt]!;
  }
  firstEdge[count] = e;
  return { byId, snap, firstEdge };
}

function field(g: HeapGraph, i: number, name: string): number {
  return g.snap.nodes[i * g.snap.nodeFields.length + g.snap.nodeFields.indexOf(name)]!;
}

function nodeName(g: HeapGraph, i: number): string {
  return g.snap.strings[field(g, i, 'name')]!;
}

function nodeType(g: HeapGraph, i: number): string {
  return g.snap.nodeTypes[field(g, i, 'type')]!;
}

interface Edge {
  type: string;
  name: string;
  to: number;
}

function edgesOf(g: HeapGraph, i: number): Edge[] {
  const ef = g.snap.edgeFields.length;
  const out: Edge[] = [];
  const nf = g.snap.nodeFields.length;
  for (let e = g.firstEdge[i]!; e < g.firstEdge[i + 1]!; e++) {
    const type = g.snap.edgeTypes[g.snap.edges[e * ef]!]!;
    const nameOrIndex = g.snap.edges[e * ef + 1]!;
    const name = type === 'element' || type === 'hidden' ? String(nameOrIndex) : g.snap.strings[nameOrIndex]!;
    out.push({ type, name, to: g.snap.edges[e * ef + 2]! / nf });
  }
  return out;
}

/** What a value is, as script sees it: a primitive's text; for an object, its named properties
 *  and elements (the targets' ids), and a Map's or Set's entries (through its table). A function
 *  is its identity: its code and feedback change as it runs. */
function signature(g: HeapGraph, i: number, depth = 0): string {
  const type = nodeType(g, i);
  const name = nodeName(g, i);
  if (type === 'number') return `number:${edgesOf(g, i).filter((e) => e.name === 'value').map((e) => nodeName(g, e.to)).join(',')}`;
  // a string is its text (V8 flattens a concatenated one as it is read: the same text)
  if (type === 'concatenated string' || type === 'sliced string' || (type === 'string' && depth > 0)) return 'string';
  if (type === 'string' || type === 'bigint' || type === 'symbol') return `${type}:${name}`;
  if (type === 'closure' || type === 'code' || type === 'native' || depth > 1) return `${type}#${field(g, i, 'id')}`;
  const parts: string[] = [];
  for (const e of edgesOf(g, i)) {
    if (e.type === 'property' || e.type === 'element') {
      if (e.name === '__proto__' || e.name === 'constructor') continue;
      const t = nodeType(g, e.to);
      const primitive = t === 'number' || t === 'hidden' || t === 'string' || t === 'concatenated string' || t === 'sliced string' || t === 'bigint';
      parts.push(`${e.name}=${primitive ? signature(g, e.to, depth + 1) : shapeOf(g, e.to)}`);
    } else if (e.type === 'internal' && e.name === 'table' && !name.startsWith('Weak')) parts.push(`table{${tableOf(g, e.to)}}`);
  }
  return `${type}|${name}|${parts.sort().join('|')}`;
}

/** What an object held by a variable's value is, not which one: a cache filled again after a
 *  restore holds new objects of the same kinds. */
function shapeOf(g: HeapGraph, i: number): string {
  const t = nodeType(g, i);
  return t === 'object' || t === 'closure' || t === 'native' ? `${t}:${nodeName(g, i)}` : t;
}

/** A Map's or Set's hash table: the keys and values it holds, in order. */
function tableOf(g: HeapGraph, i: number): string {
  return edgesOf(g, i)
    .filter((e) => e.type !== 'weak' && e.name !== 'map')
    .map((e) => {
      const t = nodeType(g, e.to);
      // keys and values as text when flat (a cache's keys are), else by kind
      return t === 'string' ? `string:${nodeName(g, e.to)}` : t === 'number' ? signature(g, e.to, 2) : shapeOf(g, e.to);
    })
    .join(',');
}

export interface ChangedVariable {
  /** The variable's name (as the script spells it: minified bundles' short names). */
  name: string;
  /** Every variable name of its context, for telling which script it belongs to. */
  context: string[];
  /** Names of functions closing over the context. */
  closures: string[];
  /** What it held at each snapshot (cut short). */
  was: string;
  now: string;
}

/** Variables of contexts alive in both snapshots whose value changed between them. */
export function changedVariables(before: HeapGraph, after: HeapGraph): ChangedVariable[] {
  const out: ChangedVariable[] = [];
  const closuresOf = new Map<number, string[]>();
  const nfA = after.snap.nodeFields.length;
  const countA = after.snap.nodes.length / nfA;
  for (let i = 0; i < countA; i++) {
    if (nodeType(after, i) !== 'closure') continue;
    for (const e of edgesOf(after, i)) {
      if (e.name !== 'context') continue;
      const list = closuresOf.get(e.to) ?? [];
      if (list.length < 5) list.push(nodeName(after, i));
      closuresOf.set(e.to, list);
    }
  }
  for (let i = 0; i < countA; i++) {
    if (!nodeName(after, i).startsWith('system / Context')) continue;
    const id = field(after, i, 'id');
    const j = before.byId.get(id);
    if (j === undefined) continue;
    const a = edgesOf(after, i).filter((e) => e.type === 'context');
    const b = new Map(edgesOf(before, j).filter((e) => e.type === 'context').map((e) => [e.name, e.to]));
    for (const e of a) {
      const was = b.get(e.name);
      const changed = was === undefined ? true : signature(before, was) !== signature(after, e.to);
      if (changed) out.push({ name: e.name, context: a.map((x) => x.name), closures: closuresOf.get(i) ?? [], was: was === undefined ? 'absent' : signature(before, was).slice(0, 200), now: signature(after, e.to).slice(0, 200) });
    }
  }
  return out;
}
