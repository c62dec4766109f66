// A throwaway nginx (Debian's package) as a round-robin load balancer on a free loopback port,
// with its own temporary prefix and config, stopped and removed afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './services.js';

const NGINX = '/usr/sbin/nginx';
const SHIPPED = join(import.meta.dirname, '..', '..', 'deploy', 'nginx.conf');

export interface NginxOptions {
  /**
   * Take the client address from the X-Forwarded-For the test client sends (nginx's realip
   * module, trusting loopback), so one test process can stand for many clients. Otherwise the
   * address nginx sees is appended, as in production (deploy/nginx.conf).
   */
  clientAddressFromHeader?: boolean;
  /** How long nginx tries to connect to an upstream before the next one (default 1000 ms). */
  connectTimeoutMs?: number;
  /**
   * Run the shipped deploy/nginx.conf itself, with only its addresses substituted (the compose
   * service names by the loopback upstreams, port 80 by a free loopback port). The other options
   * do not apply to it.
   */
  shipped?: boolean;
  /** proxy_request_buffering (default on: nginx reads the whole body before it forwards it). */
  requestBuffering?: boolean;
  /** A keep-alive upstream (HTTP/1.1, keepalive 16; default) or HTTP/1.0 with a connection per request. */
  upstreamKeepalive?: boolean;
  /** client_max_body_size in MB (default 16). */
  clientMaxBodyMb?: number;
}

/** deploy/nginx.conf with the smallest substitution that runs it here: upstream and listen addresses. */
export function shippedNginxConfig(text: string, port: number, upstreams: readonly number[]): string {
  const servers = [...text.matchAll(/^\s*server chartshot\d+:8080\b.*$/gm)];
  if (servers.length !== upstreams.length) throw new Error(`deploy/nginx.conf names ${servers.length} upstream servers; the test runs ${upstreams.length}`);
  let i = 0;
  const out = text
    .replace(/\bchartshot\d+:8080\b/g, () => `127.0.0.1:${upstreams[i++]}`)
    .replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${port};`);
  if (!out.includes(`listen 127.0.0.1:${port};`)) throw new Error('deploy/nginx.conf: no "listen 80;" line to substitute');
  return out;
}

export interface LoadBalancer {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Its temporary prefix (config, pid, temp files) and process id, for tests of the harness. */
  dir: string;
  pid: number;
  /** nginx's own output so far (errors, upstream failures). */
  output(): string;
  stop(): Promise<void>;
}

export function nginxConfig(dir: string, port: number, upstreams: readonly number[], o: NginxOptions = {}): string {
  const realIp = o.clientAddressFromHeader
    ? '      set_real_ip_from 127.0.0.1;\n      real_ip_header X-Forwarded-For;\n'
    : '';
  return `daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'tmp', 'body')};
  proxy_temp_path ${join(dir, 'tmp', 'proxy')};
  fastcgi_temp_path ${join(dir, 'tmp', 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'tmp', 'uwsgi')};
  scgi_temp_path ${join(dir, 'tmp', 'scgi')};
  client_max_body_size ${o.clientMaxBodyMb ?? 16}m;
  upstream chartshot {
${upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n')}
${o.upstreamKeepalive === false ? '' : '    keepalive 16;'}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
${realIp}      proxy_pass http://chartshot;
${o.upstreamKeepalive === false ? '' : '      proxy_http_version 1.1;\n      proxy_set_header Connection "";'}
      proxy_request_buffering ${o.requestBuffering === false ? 'off' : 'on'};
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For ${o.clientAddressFromHeader ? '$remote_addr' : '$proxy_add_x_forwarded_for'};
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_connect_timeout ${Math.max(1, Math.round(o.connectTimeoutMs ?? 1000))}ms;
      proxy_next_upstream error timeout;
      proxy_next_upstream_timeout 5s;
      proxy_buffering off;
    }
  }
}
`;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Starts nginx balancing over the given loopback ports; resolves once it accepts connections. */
export async function startNginx(upstreams: readonly number[], o: NginxOptions = {}): Promise<LoadBalancer> {
  if (!existsSync(NGINX)) throw new Error(`${NGINX} is missing: run "npm run setup" (installs Debian's nginx)`);
  const dir = mkdtempSync(join(tmpdir(), 'chartshot-nginx-'));
  mkdirSync(join(dir, 'tmp'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, o.shipped ? shippedNginxConfig(readFileSync(SHIPPED, 'utf8'), port, upstreams) : nginxConfig(dir, port, upstreams, o));
  // -e: nginx would otherwise open the package's error log before reading the config; the
  // shipped file has no daemon or pid lines (a service manager's), so they are given here
  const extra = o.shipped ? ['-g', `daemon off; pid ${join(dir, 'nginx.pid')};`] : [];
  const proc: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf, '-e', 'stderr', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  const keep = (d: Buffer) => {
    out.push(d.toString());
    if (out.length > 200) out.shift();
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM'); // fast shutdown
      const t = setTimeout(() => proc.kill('SIGKILL'), 10000);
      await exited;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 15000;
  while (!(await portOpen(port))) {
    if (proc.exitCode !== null || proc.signalCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not start: ${out.join('').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return { url: `http://127.0.0.1:${port}`, port, dir, pid: proc.pid!, output: () => out.join(''), stop };
}
