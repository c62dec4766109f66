// Runs deploy/kubernetes/overlays/cluster for real with `podman kube play`: PostgreSQL, Redis and
// two chartshot pods made from the overlay's Deployment, then checks what a cluster relies on:
// each pod healthy with Chromium's sandbox on and rendering, a short chart made on one pod served
// by the other, and GET /v1/pressure (the readiness probe) answering 503 "draining" while a pod
// stopped with a grace still answers requests, then exiting within the grace. Tears it all down.
//
// Not part of `npm test` (podman is slow). Needs root and podman; the image comes from
// scripts/container-smoke.sh:
//   BUILD_ONLY=1 IMAGE=localhost/chartshot:kube bash scripts/container-smoke.sh
//   npm run smoke:kube                      # KUBE_IMAGE=... for another image, KEEP=1 to leave it up
//
// What `podman kube play` does not run, and what this script changes (docs/kubernetes.md):
// - dropped: Service, PodDisruptionBudget, NetworkPolicy, HorizontalPodAutoscaler, ServiceMonitor
//   (podman has no Service network, scheduler, policy engine or metrics pipeline);
// - each pod on the host network (no bridge networking assumed), so each chartshot Deployment
//   gets a port of its own (PORT) in place of the Service in front of 8080;
// - the two replicas are two Deployments of one replica each, so each can be addressed and stopped;
// - emptyDir volumes become hostPath folders under a throwaway directory (podman 4.3 has no
//   emptyDir); the Secret's data is made a podman secret as a JSON map of base64 values, what
//   podman 4.3's secretKeyRef reads (it plays a Secret from YAML but then cannot read it);
// - probes: podman runs the liveness probe as a healthcheck and ignores readiness and startup
//   probes, so this script polls /v1/pressure itself, as the kubelet would;
// - seccompProfile Unconfined becomes the seccomp.security.alpha.kubernetes.io/pod annotation,
//   the form podman 4.3 reads (otherwise its default profile applies).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { build, KUBE, type Obj } from '../test/helpers/kustomize.js';

const IMAGE = process.env.KUBE_IMAGE ?? 'localhost/chartshot:kube';
const SERVICES = 'localhost/chartshot-services:bookworm';
const CACHE = process.env.CONTAINER_CACHE ?? '/var/cache/chartshot-container';
const PORTS = { a: 18281, b: 18282, pg: 15442, redis: 16389 };
const PG_UID = 101; // the postgres user of Debian's postgresql-15 package in SERVICES

const t0 = Date.now();
const say = (s: string) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${s}`);
function fail(s: string): never {
  throw new Error(s);
}
const env = { ...process.env, CONTAINERS_CONF: join(CACHE, 'containers.conf') };
const podman = (...args: string[]) => execFileSync('podman', ['--runtime', 'runc', ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

if (process.getuid?.() !== 0) fail('run as root (rootful podman)');
try {
  podman('image', 'exists', IMAGE);
} catch {
  fail(`no image ${IMAGE}: BUILD_ONLY=1 IMAGE=${IMAGE} bash scripts/container-smoke.sh`);
}

const dir = mkdtempSync(join(tmpdir(), 'chartshot-kube-'));
const pgPassword = randomBytes(16).toString('hex');
const secret = {
  'database-url': `postgres://chartshot:${pgPassword}@127.0.0.1:${PORTS.pg}/chartshot`,
  'redis-url': `redis://127.0.0.1:${PORTS.redis}`,
  'master-key': randomBytes(32).toString('hex'),
  'metrics-token': randomBytes(24).toString('hex'),
};

// ---- the overlay, adapted ------------------------------------------------------------------
const overlay = build(join(KUBE, 'overlays', 'cluster'));
const playable = new Set(['Deployment', 'Pod', 'ConfigMap', 'Secret', 'PersistentVolumeClaim']);
const dropped = overlay.filter((o) => !playable.has(o.kind)).map((o) => `${o.kind}/${o.metadata.name}`);
const deployment = overlay.find((o) => o.kind === 'Deployment') ?? fail('the cluster overlay has no Deployment');

function chartshot(name: 'a' | 'b'): Obj {
  const d = structuredClone(deployment);
  d.metadata.name = `chartshot-${name}`;
  d.spec.replicas = 1;
  const pod = d.spec.template.spec;
  pod.hostNetwork = true;
  // podman 4.3 reads the seccomp profile from the older annotation, not from securityContext
  if (pod.securityContext?.seccompProfile?.type === 'Unconfined') {
    d.spec.template.metadata.annotations = { ...d.spec.template.metadata.annotations, 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' };
  }
  delete pod.topologySpreadConstraints;
  const c = pod.containers[0];
  c.image = IMAGE;
  c.imagePullPolicy = 'Never';
  const port = PORTS[name];
  c.env = [...c.env.filter((e: Obj) => e.name !== 'PUBLIC_BASE_URL'), { name: 'PORT', value: String(port) }, { name: 'HOST', value: '127.0.0.1' }, { name: 'PUBLIC_BASE_URL', value: `http://127.0.0.1:${PORTS.a}` }];
  delete c.ports; // podman refuses port mappings on the host network
  for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
    const p = c[probe];
    if (p?.httpGet?.port === 'http') p.httpGet.port = port;
    if (p?.tcpSocket?.port === 'http') p.tcpSocket.port = port;
  }
  pod.volumes = pod.volumes.map((v: Obj) => {
    if (!v.emptyDir) return v;
    const path = join(dir, name, v.name);
    mkdirSync(path, { recursive: true });
    chownSync(path, 1000, 1000);
    return { name: v.name, hostPath: { path, type: 'Directory' } };
  });
  return d;
}

function service(name: string, script: string, uid?: number): Obj {
  const container: Obj = { name, image: SERVICES, imagePullPolicy: 'Never', command: ['bash', '-c', script] };
  if (uid !== undefined) container.securityContext = { runAsUser: uid };
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: `chartshot-${name}` }, spec: { hostNetwork: true, restartPolicy: 'Never', containers: [container] } };
}

const secretObj: Obj = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'chartshot' },
  type: 'Opaque',
  data: Object.fromEntries(Object.entries(secret).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
};
const stores: Obj[] = [
  service(
    'postgres',
    `set -e; D=/tmp/pgdata; echo '${pgPassword}' > /tmp/pw
/usr/lib/postgresql/15/bin/initdb -D $D -U chartshot -A scram-sha-256 --pwfile=/tmp/pw -E UTF8 --no-locale >/dev/null
exec /usr/lib/postgresql/15/bin/postgres -D $D -p ${PORTS.pg} -c listen_addresses=127.0.0.1 -k /tmp`,
    PG_UID,
  ),
  service('redis', `exec redis-server --port ${PORTS.redis} --bind 127.0.0.1 --maxmemory-policy noeviction --dir /tmp`),
];
const storesFile = join(dir, 'stores.yaml');
const appFile = join(dir, 'chartshot.yaml');
writeFileSync(storesFile, stores.map((o) => stringify(o)).join('---\n'));
writeFileSync(appFile, [chartshot('a'), chartshot('b')].map((o) => stringify(o)).join('---\n'));
chmodSync(dir, 0o755);

// ---- helpers -------------------------------------------------------------------------------
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, f: () => Promise<T | undefined>, seconds: number): Promise<T> {
  const end = Date.now() + seconds * 1000;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await f();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    await sleep(1000);
  }
  fail(`${what} did not happen within ${seconds} s${last ? ` (${String(last)})` : ''}`);
}
const url = (name: 'a' | 'b', path: string) => `http://127.0.0.1:${PORTS[name]}${path}`;
const ctr = (name: 'a' | 'b') => `chartshot-${name}-pod-0-chartshot`; // podman's names for a Deployment's pod and container

async function main() {
  say(`overlay cluster built: ${overlay.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  say(`not played by podman (dropped): ${dropped.join(', ')}`);
  removeAll(); // what an interrupted run left
  say(`image ${IMAGE} (${podman('image', 'inspect', '--format', '{{.Created}}', IMAGE).trim()}); manifests in ${dir}`);

  // podman 4.3 stores a Secret played from YAML as that YAML, then its own secretKeyRef reads a
  // secret as a JSON map of base64 values and fails: the Secret's data is created as that map
  say('podman secret create chartshot (the Secret\'s data, as JSON); podman kube play stores.yaml (PostgreSQL, Redis)');
  const secretFile = join(dir, 'secret.json');
  writeFileSync(secretFile, JSON.stringify(secretObj.data), { mode: 0o600 });
  podman('secret', 'create', 'chartshot', secretFile);
  rmSync(secretFile);
  podman('kube', 'play', storesFile);
  await until('PostgreSQL', async () => (podman('exec', 'chartshot-postgres-postgres', '/usr/lib/postgresql/15/bin/pg_isready', '-h', '127.0.0.1', '-p', String(PORTS.pg)), true), 120);
  podman('exec', '-e', `PGPASSWORD=${pgPassword}`, 'chartshot-postgres-postgres', '/usr/lib/postgresql/15/bin/createdb', '-h', '127.0.0.1', '-p', String(PORTS.pg), '-U', 'chartshot', 'chartshot');
  await until('Redis', async () => (podman('exec', 'chartshot-redis-redis', 'redis-cli', '-p', String(PORTS.redis), 'ping').includes('PONG') ? true : undefined), 60);

  say('podman kube play chartshot.yaml (the overlay Deployment as chartshot-a and chartshot-b)');
  podman('kube', 'play', appFile);
  for (const n of ['a', 'b'] as const) {
    const p = await until(`pod ${n} ready (GET /v1/pressure 200)`, async () => {
      const r = await fetch(url(n, '/v1/pressure'));
      return r.status === 200 ? ((await r.json()) as Obj) : undefined;
    }, 300);
    const s = (await (await fetch(url(n, '/v1/status'))).json()) as Obj;
    say(`pod ${n}: /v1/pressure 200 pages=${p.pages} accepting=${p.accepting}; /v1/status ${s.status}, sandbox ${s.renderer?.sandbox}`);
    if (s.status !== 'healthy' || s.renderer?.sandbox !== 'on') fail(`pod ${n} is not healthy with the sandbox on: ${JSON.stringify(s)}`);
  }
  const account = JSON.parse(podman('exec', ctr('a'), 'node', 'dist/cli.js', 'accounts', 'create', '--plan', 'starter', '--json')) as Obj;
  const headers = { 'X-Api-Key': account.api_key as string, 'Content-Type': 'application/json' };
  const chart = JSON.stringify({ chart: { type: 'bar', data: { labels: ['a', 'b', 'c'], datasets: [{ label: 'kube', data: [3, 1, 2] }] } }, width: 320, height: 200 });

  for (const n of ['a', 'b'] as const) {
    const r = await fetch(url(n, '/v1/chart'), { method: 'POST', headers, body: chart });
    const b = Buffer.from(await r.arrayBuffer());
    const png = b.subarray(1, 4).toString() === 'PNG';
    say(`pod ${n}: POST /v1/chart ${r.status} ${r.headers.get('content-type')} ${png ? `${b.readUInt32BE(16)}x${b.readUInt32BE(20)}` : ''} ${b.length} bytes`);
    if (r.status !== 200 || !png || b.readUInt32BE(16) !== 320) fail(`pod ${n} did not render a 320x200 PNG`);
  }
  const created = (await (await fetch(url('a', '/v1/chart/create'), { method: 'POST', headers, body: chart })).json()) as Obj;
  const served = await fetch(url('b', `/v1/chart/${created.id}`));
  say(`short chart ${created.id} made on pod a; GET on pod b: ${served.status} ${served.headers.get('content-type')} ${(await served.arrayBuffer()).byteLength} bytes`);
  if (served.status !== 200 || served.headers.get('content-type') !== 'image/png') fail('the short chart made on pod a is not served by pod b');

  // ---- drain: SIGTERM with a grace, as the kubelet stops a pod -------------------------------
  const grace = deployment.spec.template.spec.terminationGracePeriodSeconds as number;
  say(`podman stop -t ${grace} ${ctr('b')} (SIGTERM, then SIGKILL after terminationGracePeriodSeconds)`);
  const stopStart = Date.now();
  const stop = spawn('podman', ['--runtime', 'runc', 'stop', '-t', String(grace), ctr('b')], { env, stdio: 'ignore' });
  const stopped = new Promise<number>((r) => stop.on('exit', (code) => r(code ?? -1)));
  const drainView = await until('pod b /v1/pressure 503 draining', async () => {
    const r = await fetch(url('b', '/v1/pressure'));
    if (r.status !== 503) return undefined;
    return { status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as Obj };
  }, 30);
  say(`pod b during the drain: /v1/pressure ${drainView.status} accepting=${drainView.body.accepting} reason=${drainView.body.reason} (${((Date.now() - stopStart) / 1000).toFixed(1)} s after SIGTERM)`);
  if (drainView.body.reason !== 'draining') fail('pod b is not ready for another reason than draining');
  const during = await fetch(url('b', '/v1/chart'), { method: 'POST', headers, body: chart });
  say(`pod b during the drain grace: POST /v1/chart ${during.status} ${during.headers.get('content-type')} (routed before the endpoint is removed: still answered)`);
  const other = await fetch(url('a', '/v1/pressure'));
  say(`pod a meanwhile: /v1/pressure ${other.status}`);
  if (during.status !== 200 || other.status !== 200) fail('a render routed during the grace was not answered, or pod a is not ready');
  const code = await stopped;
  const exited = podman('inspect', '--format', '{{.State.ExitCode}}', ctr('b')).trim();
  say(`pod b stopped after ${((Date.now() - stopStart) / 1000).toFixed(1)} s (podman stop ${code}, container exit code ${exited}; SIGKILL would be 137)`);
  if (exited === '137') fail('pod b was killed at the end of the grace instead of exiting');
  const after = await fetch(url('a', `/v1/chart/${created.id}`));
  say(`pod a after pod b left: GET the short chart ${after.status}`);
  if (after.status !== 200) fail('pod a does not serve the short chart after pod b stopped');
  say('PASS');
}

const PODS = ['chartshot-a-pod-0', 'chartshot-b-pod-0', 'chartshot-postgres', 'chartshot-redis'];
function removeAll(): void {
  for (const f of [appFile, storesFile]) {
    try {
      podman('kube', 'down', f);
    } catch {
      /* a pod already gone stops kube down: removed by name below */
    }
  }
  for (const p of PODS) {
    try {
      podman('pod', 'rm', '-f', '-t', '5', p);
    } catch {
      /* not there */
    }
  }
  try {
    podman('secret', 'rm', 'chartshot');
  } catch {
    /* not there */
  }
}

function teardown() {
  if (process.env.KEEP === '1') return say(`KEEP=1: left running; podman kube down ${appFile} ${storesFile}`);
  removeAll();
  rmSync(dir, { recursive: true, force: true });
  say(`torn down: podman kube down, pods ${PODS.join(', ')}, the secret and the manifests folder removed`);
}

try {
  await main();
  teardown();
} catch (e) {
  console.error(`FAILED: ${(e as Error).message}`);
  for (const n of ['a', 'b'] as const) {
    try {
      console.error(`--- podman logs ${ctr(n)} (last 15 lines)\n${podman('logs', '--tail', '15', ctr(n))}`);
    } catch {
      /* not started */
    }
  }
  teardown();
  process.exitCode = 1;
}
