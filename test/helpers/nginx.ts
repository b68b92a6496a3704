// Debian's nginx (/usr/sbin/nginx; `.ci/run` installs nginx-light) in front of service nodes, for
// the tests: deploy/nginx.conf itself, with its listen ports, upstream servers, TLS and file paths
// replaced for a test run. A plain module: no vitest, so tsx runs it too.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePorts } from './free-ports.js';
import { ROOT, tempDir, type ServiceProcess } from './service-process.js';
import { pollUntil } from './waits.js';

export const NGINX = process.env.NGINX_BIN ?? '/usr/sbin/nginx';
export const DEPLOY_CONF = path.join(ROOT, 'deploy/nginx.conf');

export type Listener = 'ingest' | 'rest' | 'broadcast';
const LISTENER_OF_PORT: Record<string, Listener> = { 5100: 'ingest', 5101: 'rest', 5200: 'broadcast' };

/** Replaces every match of `pattern` (global) and checks how many there were. */
function replaceCounted(text: string, pattern: RegExp, count: number | 'some', by: (...m: string[]) => string): string {
  let n = 0;
  const out = text.replace(pattern, (...m: string[]) => { n++; return by(...m); });
  if (count === 'some' ? n === 0 : n !== count) throw new Error(`deploy/nginx.conf changed: ${pattern} matched ${n} times (expected ${count})`);
  return out;
}

/**
 * deploy/nginx.conf for a test run: nginx in the foreground as one process with its files in `dir`,
 * plain HTTP on loopback `ports` (the example terminates TLS; nothing else changes), the upstreams'
 * node-1..3 replaced by the nodes' loopback ports (servers for absent nodes dropped). Connections to
 * the nodes leave from 127.0.0.254, so a node's logs tell the forwarded client address (127.0.0.1)
 * from nginx's.
 */
export function testNginxConfig(deploy: string, dir: string, ports: Record<Listener, number>, nodes: ServiceProcess[]): string {
  let conf = deploy;
  conf = replaceCounted(conf, /^(worker_processes|error_log|pid)\s[^;]*;\n/gm, 3, () => '');
  conf = `daemon off;\nmaster_process off;\nerror_log ${dir}/error.log info;\npid ${dir}/nginx.pid;\n${conf}`;
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${dir}/${t};`).join(' ');
  conf = replaceCounted(conf, /^(\s*)access_log\s[^;]*;/gm, 1, (_m, indent) => `${indent}access_log ${dir}/access.log;\n${indent}${temp}\n${indent}proxy_bind 127.0.0.254;`);
  conf = replaceCounted(conf, /^\s*ssl_[a-z_]+\s[^;]*;\n/gm, 'some', () => '');
  conf = replaceCounted(conf, /listen (5100|5101|5200) ssl;/g, 3, (_m, port) => `listen 127.0.0.1:${ports[LISTENER_OF_PORT[port]]};`);
  conf = replaceCounted(conf, /^(\s*)server node-(\d+):(5100|5101|5200);\n/gm, 9, (_m, indent, n, port) => {
    const node = nodes[Number(n) - 1];
    return node ? `${indent}server 127.0.0.1:${node.ports[LISTENER_OF_PORT[port]]};\n` : '';
  });
  return conf;
}

export interface Nginx { proc: ChildProcess; dir: string; urls: Record<Listener, string>; exited: Promise<number | null> }

export async function startNginx(nodes: ServiceProcess[]): Promise<Nginx> {
  const dir = tempDir('ods-nginx-');
  const [ingest, rest, broadcast] = await freePorts(3);
  const ports = { ingest, rest, broadcast };
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(conf, testNginxConfig(fs.readFileSync(DEPLOY_CONF, 'utf8'), dir, ports, nodes));
  const out: string[] = [];
  const proc = spawn(NGINX, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (c: Buffer) => out.push(c.toString()));
  proc.stderr!.on('data', (c: Buffer) => out.push(c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
  const urls = { ingest: `http://127.0.0.1:${ports.ingest}`, rest: `http://127.0.0.1:${ports.rest}`, broadcast: `http://127.0.0.1:${ports.broadcast}` };
  // Ready once /status answers through it (the REST upstream: a node behind it answered too).
  const deadline = Date.now() + 20_000;
  await pollUntil(async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`nginx exited (${proc.exitCode ?? proc.signalCode}):\n${out.join('')}\n${readIf(path.join(dir, 'error.log'))}`);
    }
    return fetch(`${urls.rest}/status`).then((r) => r.ok, () => false);
  }, 'nginx answering /status', Math.max(0, deadline - Date.now()), 50).catch((err: Error) => {
    proc.kill('SIGKILL');
    throw new Error(`${err.message}:\n${out.join('')}\n${readIf(path.join(dir, 'error.log'))}`);
  });
  return { proc, dir, urls, exited };
}

function readIf(file: string): string {
  try { return fs.readFileSync(file, 'utf8'); } catch { return ''; }
}


/** Stops nginx (SIGTERM, then SIGKILL after 5 s). */
export async function stopNginx(nginx: Nginx): Promise<void> {
  if (nginx.proc.exitCode !== null || nginx.proc.signalCode !== null) return;
  nginx.proc.kill('SIGTERM');
  const timer = setTimeout(() => nginx.proc.kill('SIGKILL'), 5_000);
  await nginx.exited;
  clearTimeout(timer);
}
