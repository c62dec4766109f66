// The nginx load-balancer harness of the cluster tests, proven on two plain node:http upstreams:
// round robin, X-Forwarded-For, failover when one upstream is SIGKILLed; and the shipped deploy/nginx.conf.
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNginx, type LoadBalancer } from '../helpers/nginx.js';

/** A node:http server in a child process (so it can be SIGKILLed) answering who it is and what it got. */
const UPSTREAM = `
const http = require('node:http');
const name = process.argv[1];
const srv = http.createServer((req, res) => {
  let n = 0;
  req.on('data', (d) => (n += d.length));
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ name, method: req.method, bytes: n, xff: req.headers['x-forwarded-for'] ?? null, host: req.headers.host ?? null }));
  });
});
srv.listen(0, '127.0.0.1', () => process.stdout.write(srv.address().port + '\\n'));
`;

interface Upstream {
  proc: ChildProcess;
  port: number;
}

async function upstream(name: string): Promise<Upstream> {
  const proc = spawn(process.execPath, ['-e', UPSTREAM, name], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(proc.stdout!, 'data')) as [Buffer];
  return { proc, port: Number(line.toString().trim()) };
}

interface Answer {
  name: string;
  method: string;
  bytes: number;
  xff: string | null;
  host: string | null;
}

async function ask(lb: LoadBalancer, init: RequestInit = {}, path = '/'): Promise<Answer> {
  const res = await fetch(lb.url + path, init);
  expect(res.status, lb.output()).to.equal(200);
  return (await res.json()) as Answer;
}

describe('the nginx load-balancer harness', function () {
  this.timeout(60000);
  let a: Upstream;
  let b: Upstream;
  let lb: LoadBalancer;
  let real: LoadBalancer | undefined;

  before(async () => {
    [a, b] = await Promise.all([upstream('a'), upstream('b')]);
    lb = await startNginx([a.port, b.port], { connectTimeoutMs: 500 });
  });
  after(async () => {
    await lb?.stop();
    await real?.stop();
    for (const u of [a, b]) if (u && u.proc.exitCode === null && u.proc.signalCode === null) u.proc.kill('SIGKILL');
  });

  it('answers alternately from the two upstreams (round robin), GET and POST alike', async () => {
    const names: string[] = [];
    for (let i = 0; i < 10; i++) names.push((await ask(lb, i % 2 ? { method: 'POST', body: 'x'.repeat(1000) } : {})).name);
    for (let i = 1; i < names.length; i++) expect(names[i], names.join('')).not.to.equal(names[i - 1]);
    expect(new Set(names)).to.deep.equal(new Set(['a', 'b']));
    const posted = await ask(lb, { method: 'POST', body: 'y'.repeat(5000) });
    expect(posted).to.include({ method: 'POST', bytes: 5000 });
    expect(posted.host).to.equal(`127.0.0.1:${lb.port}`);
  });

  it('X-Forwarded-For arrives with the address nginx saw last (what TRUST_PROXY reads)', async () => {
    expect((await ask(lb)).xff).to.equal('127.0.0.1');
    // a client's own header is kept in front: the right-most entry stays the real peer
    expect((await ask(lb, { headers: { 'x-forwarded-for': '203.0.113.9' } })).xff).to.equal('203.0.113.9, 127.0.0.1');
  });

  it('with clientAddressFromHeader, the test client chooses the address the upstreams see', async () => {
    real = await startNginx([a.port, b.port], { clientAddressFromHeader: true });
    expect((await ask(real, { headers: { 'x-forwarded-for': '198.51.100.23' } })).xff).to.equal('198.51.100.23');
    expect((await ask(real)).xff).to.equal('127.0.0.1');
    await real.stop();
    real = undefined;
  });

  it('an upstream SIGKILLed: every answer comes from the other, within 5 s', async () => {
    b.proc.kill('SIGKILL');
    await once(b.proc, 'exit');
    const killedAt = Date.now();
    const seen: string[] = [];
    for (let i = 0; i < 20; i++) {
      // POSTs too: a refused connection means nothing was sent, so nginx passes them on
      const r = await ask(lb, i % 2 ? { method: 'POST', body: 'z' } : {});
      seen.push(r.name);
    }
    expect(Date.now() - killedAt).to.be.below(5000);
    expect(seen.every((n) => n === 'a'), seen.join('')).to.equal(true);
  });

  it('stop() ends nginx, frees its port and removes its folder', async () => {
    const { pid, dir, port } = lb;
    await lb.stop();
    expect(existsSync(`/proc/${pid}`)).to.equal(false);
    expect(existsSync(dir)).to.equal(false);
    const refused = await fetch(`http://127.0.0.1:${port}/`).then(() => false, () => true);
    expect(refused).to.equal(true);
  });
});

describe('deploy/nginx.conf', () => {
  it('is a configuration nginx accepts (the compose service names stood in for by loopback)', () => {
    const text = readFileSync('deploy/nginx.conf', 'utf8');
    expect(text).to.match(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    expect(text.match(/server chartshot\d:8080/g)).to.have.length(2);
    const dir = mkdtempSync(join(tmpdir(), 'chartshot-nginx-t-'));
    try {
      writeFileSync(join(dir, 'nginx.conf'), text.replace(/chartshot\d:8080/g, '127.0.0.1:1'));
      const r = spawnSync('/usr/sbin/nginx', ['-t', '-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr', '-g', `pid ${join(dir, 'nginx.pid')};`], { encoding: 'utf8' });
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stderr).to.contain('test is successful');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
