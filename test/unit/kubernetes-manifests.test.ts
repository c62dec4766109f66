// deploy/kubernetes: every overlay built the way kustomize builds it (resources, labels,
// strategic merge patches; anything else in a kustomization fails the build here), and every
// object validated against Kubernetes' schemas (kubernetes-models; KEDA's and the Prometheus
// operator's models for their resources), then checked for what the service relies on: the
// termination grace covers the drain the config implies, readiness is /v1/pressure, liveness
// never fails a busy or draining pod, the sandbox-keeping securityContext, selectors that match,
// an autoscaler on a metric the server exports, and environment the config accepts.
import { expect } from 'chai';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { loadConfig } from '../../src/config.js';
import { drainBoundMs } from '../../src/main.js';
import { Metrics } from '../../src/services/metrics.js';
import { PressureService } from '../../src/services/pressure.js';
import { Lifecycle } from '../../src/services/lifecycle.js';
import type { PoolStats } from '../../src/render/renderer.js';
import { KUBE, build, merge, type Obj } from '../helpers/kustomize.js';

type Validated = new (o: Obj) => { validate(): void };
const MODELS: Record<string, Validated> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'v1 PersistentVolumeClaim': PersistentVolumeClaim,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1 NetworkPolicy': NetworkPolicy,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler as unknown as Validated,
  'keda.sh/v1alpha1 ScaledObject': ScaledObject as unknown as Validated,
  'monitoring.coreos.com/v1 ServiceMonitor': ServiceMonitor as unknown as Validated,
};

const find = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind);
const one = (objs: Obj[], kind: string) => {
  const all = find(objs, kind);
  expect(all, kind).to.have.length(1);
  return all[0]!;
};
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

/** The names the server exports on /metrics (pool and pressure gauges included). */
function exportedMetricNames(): Promise<string> {
  const stats: PoolStats = { size: 2, available: 2, borrowed: 0, pending: 0, browserRestarts: 0, pagesCreated: 2, pagesDestroyed: 0, queueRejections: 0, browserConnected: true };
  const pressure = new PressureService({ stats: () => stats }, new Lifecycle(), { maxQueue: 64 });
  return new Metrics({ poolStats: () => stats, pressure: () => pressure.report(), processMetrics: false }).text();
}

const OVERLAYS = ['single-sqlite', 'cluster', 'cluster-keda'];

describe('deploy/kubernetes manifests', () => {
  const built = Object.fromEntries(OVERLAYS.map((o) => [o, build(join(KUBE, 'overlays', o))])) as Record<string, Obj[]>;

  for (const overlay of OVERLAYS) {
    describe(`overlays/${overlay}`, () => {
      const objs = built[overlay]!;

      it("every object is valid against Kubernetes' schemas (and KEDA's, the Prometheus operator's)", () => {
        expect(objs.length).to.be.at.least(4);
        for (const o of objs) {
          const Model = MODELS[`${o.apiVersion} ${o.kind}`];
          expect(Model, `a model for ${o.apiVersion} ${o.kind}`).to.not.equal(undefined);
          expect(() => new Model!(o).validate(), `${o.kind}/${o.metadata?.name}`).to.not.throw();
        }
      });

      it('the termination grace covers the drain its own environment implies; readiness is /v1/pressure; liveness never fails a busy or draining pod', () => {
        const d = one(objs, 'Deployment');
        const pod = d.spec.template.spec;
        const c = pod.containers.find((x: Obj) => x.name === 'chartshot');
        // the container's environment, secrets stood in for, is one the server starts with
        const env: Record<string, string> = { MASTER_KEY: 'ab'.repeat(32) };
        for (const e of c.env as Obj[]) env[e.name] = e.value ?? (e.name === 'DATABASE_URL' ? 'postgres://u:p@db/chartshot' : e.name === 'REDIS_URL' ? 'redis://redis:6379' : e.name === 'MASTER_KEY' ? 'ab'.repeat(32) : 'x'.repeat(32));
        const config = loadConfig(env);
        expect(config.drainGraceMs).to.be.above(0);
        expect(pod.terminationGracePeriodSeconds * 1000).to.be.at.least(drainBoundMs(config, config.drainGraceMs));
        expect(c.readinessProbe.httpGet.path).to.equal('/v1/pressure');
        expect(c.startupProbe.httpGet.path).to.equal('/v1/pressure');
        expect(c.livenessProbe.httpGet, 'liveness is not an HTTP check that a drain or a busy pool could fail').to.equal(undefined);
        expect(c.livenessProbe.tcpSocket.port).to.equal('http');
        expect(c.ports.find((p: Obj) => p.name === 'http').containerPort).to.equal(config.port);
      });

      it("Chromium's sandbox with nothing extra: a non-root user, no privilege, every capability dropped, a read-only root", () => {
        const pod = one(objs, 'Deployment').spec.template.spec;
        const c = pod.containers[0];
        expect(pod.securityContext.runAsNonRoot).to.equal(true);
        expect(pod.securityContext.runAsUser).to.be.above(0);
        expect(pod.automountServiceAccountToken).to.equal(false);
        expect(c.securityContext.allowPrivilegeEscalation).to.equal(false);
        expect(c.securityContext.privileged ?? false).to.equal(false);
        expect(c.securityContext.capabilities).to.deep.equal({ drop: ['ALL'] });
        expect(c.securityContext.capabilities.add).to.equal(undefined);
        expect(c.securityContext.readOnlyRootFilesystem).to.equal(true);
        expect(c.volumeMounts.map((m: Obj) => m.mountPath)).to.include('/tmp');
        expect(c.resources.limits.memory).to.be.a('string');
        expect(c.resources.requests.memory).to.be.a('string');
      });

      it('the Service, the PodDisruptionBudget and the NetworkPolicy select the pods', () => {
        const d = one(objs, 'Deployment');
        const labels = d.spec.template.metadata.labels as Record<string, string>;
        expect(matches(d.spec.selector.matchLabels, labels)).to.equal(true);
        expect(matches(one(objs, 'Service').spec.selector, labels)).to.equal(true);
        expect(matches(one(objs, 'PodDisruptionBudget').spec.selector.matchLabels, labels)).to.equal(true);
        const np = one(objs, 'NetworkPolicy');
        expect(matches(np.spec.podSelector.matchLabels, labels)).to.equal(true);
        expect(np.spec.policyTypes).to.deep.equal(['Ingress', 'Egress']);
        // out: DNS, PostgreSQL and Redis only
        const ports = (np.spec.egress as Obj[]).flatMap((r) => (r.ports as Obj[]).map((p) => p.port)).sort((a, b) => a - b);
        expect(ports).to.deep.equal([53, 53, 5432, 6379]);
        expect((np.spec.egress as Obj[]).some((r) => (r.to as Obj[] | undefined)?.some((t) => t.ipBlock))).to.equal(false);
      });
    });
  }

  it('single-sqlite: one pod, replaced rather than rolled, DATA_DIR on the claim the overlay makes', () => {
    const objs = built['single-sqlite']!;
    const d = one(objs, 'Deployment');
    expect(d.spec.replicas).to.equal(1);
    expect(d.spec.strategy.type).to.equal('Recreate');
    const data = (d.spec.template.spec.volumes as Obj[]).find((v) => v.name === 'data')!;
    expect(data).to.deep.equal({ name: 'data', persistentVolumeClaim: { claimName: 'chartshot-data' } });
    expect(one(objs, 'PersistentVolumeClaim').metadata.name).to.equal('chartshot-data');
    expect(find(objs, 'HorizontalPodAutoscaler')).to.have.length(0);
  });

  it('cluster: PostgreSQL, Redis and the master key from the Secret; rolled one surge pod at a time; an HPA on chartshot_load, which the server exports', async () => {
    const objs = built.cluster!;
    const d = one(objs, 'Deployment');
    expect(d.spec.strategy.rollingUpdate).to.deep.equal({ maxUnavailable: 0, maxSurge: 1 });
    const env = d.spec.template.spec.containers[0].env as Obj[];
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'MASTER_KEY', 'METRICS_TOKEN']) {
      expect(env.find((e) => e.name === name)?.valueFrom?.secretKeyRef?.name, name).to.equal('chartshot');
    }
    const hpa = one(objs, 'HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).to.deep.equal({ apiVersion: 'apps/v1', kind: 'Deployment', name: d.metadata.name });
    expect(hpa.spec.minReplicas).to.be.at.least(2);
    const metric = hpa.spec.metrics[0].pods.metric.name as string;
    const text = await exportedMetricNames();
    expect(text).to.match(new RegExp(`^${metric} `, 'm'));
    const sm = one(objs, 'ServiceMonitor');
    expect(sm.spec.endpoints[0].port).to.equal(one(objs, 'Service').spec.ports[0].name);
    expect(sm.spec.endpoints[0].path).to.equal('/metrics');
    expect(sm.spec.endpoints[0].bearerTokenSecret).to.deep.equal({ name: 'chartshot', key: 'metrics-token' });
  });

  it('cluster-keda: no HPA of its own; a ScaledObject on the Deployment whose query names metrics the server exports', async () => {
    const objs = built['cluster-keda']!;
    expect(find(objs, 'HorizontalPodAutoscaler')).to.have.length(0);
    const so = one(objs, 'ScaledObject');
    expect(so.spec.scaleTargetRef.name).to.equal(one(objs, 'Deployment').metadata.name);
    const query = so.spec.triggers[0].metadata.query as string;
    const text = await exportedMetricNames();
    const names = [...query.matchAll(/\b(chartshot_[a-z_]+)\{/g)].map((m) => m[1]!);
    expect(names.length).to.be.at.least(2);
    for (const n of names) expect(text, n).to.match(new RegExp(`^${n} `, 'm'));
  });

  it('the validation and the builder can fail: a wrong type, an unknown field, a merge that keeps or drops fields', () => {
    const d = one(built.cluster!, 'Deployment');
    expect(() => new Deployment({ ...d, spec: { ...d.spec, replicas: 'two' } } as never).validate()).to.throw(/replicas/);
    const so = one(built['cluster-keda']!, 'ScaledObject');
    expect(() => new ScaledObject({ ...so, spec: { ...so.spec, minReplicaCount: 'two' } } as never).validate()).to.throw();
    expect(merge({ containers: [{ name: 'x', a: 1, b: 2 }] }, { containers: [{ name: 'x', b: null, c: 3 }] })).to.deep.equal({ containers: [{ name: 'x', a: 1, c: 3 }] });
  });
});
