// kustomize build for deploy/kubernetes, for the fields its kustomizations use (resources,
// labels, strategic merge patches; anything else in a kustomization fails the build), so the
// manifests test and scripts/kube-smoke.ts read the overlays without kustomize installed.
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

export type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const KUBE = join(import.meta.dirname, '..', '..', 'deploy', 'kubernetes');

export function readDocs(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
    if (d.errors.length) throw new Error(`${file}: ${d.errors[0]!.message}`);
    return d.toJS() as Obj;
  }).filter((o) => o !== null);
}

/** Lists of objects merged by key, as Kubernetes' strategic merge patch does for these fields. */
const MERGE_KEYS: Record<string, string> = { containers: 'name', initContainers: 'name', env: 'name', volumes: 'name', volumeMounts: 'mountPath', ports: 'containerPort' };

export function merge(base: unknown, patch: unknown, field = ''): unknown {
  if (patch === null) return undefined;
  if (Array.isArray(patch)) {
    const key = MERGE_KEYS[field];
    if (!key || !Array.isArray(base)) return patch;
    const out = [...base] as Obj[];
    for (const p of patch as Obj[]) {
      const i = out.findIndex((b) => b[key] === p[key]);
      if (i < 0) out.push(p);
      else out[i] = merge(out[i], p) as Obj;
    }
    return out;
  }
  if (typeof patch !== 'object' || typeof base !== 'object' || base === null || Array.isArray(base)) return patch;
  const out: Obj = { ...(base as Obj) };
  for (const [k, v] of Object.entries(patch as Obj)) {
    const m = merge(out[k], v, k);
    if (m === undefined) delete out[k];
    else out[k] = m;
  }
  return out;
}

const same = (a: Obj, b: Obj) => a.kind === b.kind && a.metadata?.name === b.metadata?.name;

/** kustomize build of dir (an overlay or the base), for the fields these kustomizations use. */
export function build(dir: string): Obj[] {
  const k = readDocs(join(dir, 'kustomization.yaml'))[0]!;
  const known = new Set(['apiVersion', 'kind', 'resources', 'patches', 'labels']);
  for (const f of Object.keys(k)) if (!known.has(f)) throw new Error(`${dir}: kustomization field "${f}" is not built here`);
  let objs: Obj[] = [];
  for (const r of (k.resources ?? []) as string[]) {
    const p = resolve(dir, r);
    objs.push(...(statSync(p).isDirectory() ? build(p) : readDocs(p)));
  }
  for (const l of (k.labels ?? []) as Array<{ pairs: Record<string, string>; includeSelectors?: boolean }>) {
    if (l.includeSelectors) throw new Error('labels with includeSelectors are not built here');
    for (const o of objs) o.metadata = { ...o.metadata, labels: { ...o.metadata?.labels, ...l.pairs } };
  }
  for (const { path } of (k.patches ?? []) as Array<{ path: string }>) {
    for (const patch of readDocs(join(dir, path))) {
      const i = objs.findIndex((o) => same(o, patch));
      if (i < 0) throw new Error(`${dir}/${path}: nothing to patch named ${patch.kind}/${patch.metadata?.name}`);
      if (patch.$patch === 'delete') objs = objs.filter((_, j) => j !== i);
      else objs[i] = merge(objs[i], patch) as Obj;
    }
  }
  return objs;
}
