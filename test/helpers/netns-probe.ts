// Run inside the network namespace test/main/sockets/ipv6-netns.test.ts creates (a ULA /48 routed
// to its loopback, non-local binds allowed): real TCP connections to the service from many IPv6
// source addresses. Prints one JSON line with what it saw. A plain module, run with `node --import tsx`.
import http from 'node:http';
import net from 'node:net';
import { pollUntil } from './waits.js';

interface Args { ingest: number; broadcast: number; metrics: number; prefix: string }
const args = JSON.parse(process.argv[2]) as Args;
const hex = (n: number) => n.toString(16);
/** The i-th address of <prefix>::/64 (one /64). */
const inOne64 = (i: number) => `${args.prefix}::1:${hex(i >>> 16)}:${hex(i & 0xffff)}`;
/** An address in the j-th other /64 of <prefix>::/48. */
const inOther64 = (j: number) => `${args.prefix}:0:${hex(j + 1)}::1`;

/** A value of the service's /metrics (the sum of the samples of `name` whose labels include `listener`). */
async function metric(name: string, listener: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${args.metrics}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) || !line.includes(`listener="${listener}"`)) continue;
    if (name === 'ods_tcp_connections_refused_total' && !line.includes('reason="address"')) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/**
 * Idle connections from each address, `batch` at a time (below the listen backlog: a flood past it
 * leaves connections the client counts as open that the server never accepted). Resolves once the
 * service's own counts (/metrics: refused, open) stand still for a second, with the most it held at
 * once: the service closes idle connections after ~10 s (REQUEST_HEAD_TIMEOUT_MS, uWS's idle
 * timeout), which a flood on a loaded machine can outlast, so what it holds at the end may be fewer.
 */
async function idleFrom(port: number, listener: string, addresses: string[], batch = 200): Promise<{ connected: number; held: number; ms: number }> {
  const started = Date.now();
  const openBefore = await metric('ods_tcp_connections', listener);
  const sockets: net.Socket[] = [];
  let connected = 0;
  // The open count, read every 100 ms from the flood's start until the counts settle: its peak.
  let peak = 0;
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      peak = Math.max(peak, await metric('ods_tcp_connections', listener) - openBefore);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  for (let i = 0; i < addresses.length; i += batch) {
    await Promise.all(addresses.slice(i, i + batch).map((localAddress) => new Promise<void>((resolve) => {
      const socket = net.connect({ port, host: `${args.prefix}::1`, localAddress });
      sockets.push(socket);
      socket.on('error', () => undefined);
      socket.once('connect', () => { connected++; resolve(); });
      socket.once('close', () => resolve());
    })));
  }
  const ms = Date.now() - started;
  // Polled every 200 ms until five readings in a row agree (or 10 s): what the service settled on.
  let seen = '';
  let stable = 0;
  const deadline = Date.now() + 10_000;
  await pollUntil(async () => {
    const now = `${await metric('ods_tcp_connections', listener)}/${await metric('ods_tcp_connections_refused_total', listener)}`;
    stable = now === seen ? stable + 1 : 0;
    seen = now;
    return stable >= 5 || Date.now() > deadline;
  }, `${listener}: the connection counts settling`, 20_000, 200);
  watching = false;
  await watcher;
  for (const socket of sockets) socket.destroy();
  // The next batch counts from the service's open connections: wait until it has closed these.
  await pollUntil(async () => await metric('ods_tcp_connections', listener) <= openBefore, `${listener}: the probe's connections closed`, 30_000, 50);
  return { connected, held: peak, ms };
}

/** An Engine.IO polling handshake from `localAddress`: its HTTP status. */
function handshake(localAddress: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: `${args.prefix}::1`, port: args.ingest, path: '/socket.io/?EIO=4&transport=polling', localAddress, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
  });
}

const one64 = Array.from({ length: 10_000 }, (_, i) => inOne64(i));
const result = {
  ingestOne64: await idleFrom(args.ingest, 'ingest', one64),
  broadcastOne64: await idleFrom(args.broadcast, 'broadcast', one64),
  ingestDistinct64: await idleFrom(args.ingest, 'ingest', Array.from({ length: 200 }, (_, j) => inOther64(j))),
  handshakes: await Promise.all(Array.from({ length: 12 }, (_, i) => handshake(`${args.prefix}:0:ffff::${hex(i + 1)}`))),
  metrics: await (await fetch(`http://127.0.0.1:${args.metrics}/metrics`)).text(),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
