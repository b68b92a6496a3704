// Scale-out behind a real load balancer (README, "Running several nodes"): Debian's nginx
// (/usr/sbin/nginx; `.ci/run` installs nginx-light) runs deploy/nginx.conf, with its listen ports,
// upstream servers, TLS and file paths replaced for a test run, in front of two nodes on one Redis.
// Every client talks to nginx only, with the real clients' options (polling, then the upgrade).
import fs from 'node:fs';
import http from 'node:http';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, connectObserver, connected, overlay } from '../../helpers/clients.js';
import { CLUSTER_KEY, logLines, startCluster, type Cluster } from '../../helpers/cluster.js';
import { playReplay, sendRecords, shortMatch } from '../../helpers/recorded.js';
import { scrapeMetrics } from '../../helpers/metrics.js';
import { NGINX, startNginx, stopNginx, type Nginx } from '../../helpers/nginx.js';
import type { ServiceProcess } from '../../helpers/service-process.js';

// 800 records of the recorded game (six rounds) and its end: what crosses nginx is the same kind of
// traffic as the whole game's, for a third of the CPU.
const replay = shortMatch(800);

let cluster: Cluster;
let nginx: Nginx | undefined;

beforeAll(async () => {
  if (!fs.existsSync(NGINX)) throw new Error(`${NGINX} is missing: install Debian's nginx-light (.ci/run does)`);
  cluster = await startCluster(2, { TRUST_REPLAY_TIMESTAMPS: 'true', TRUST_PROXY: 'true', MAX_SOCKETS_PER_ADDRESS: '0' });
  nginx = await startNginx(cluster.nodes);
}, 90_000);

afterAll(async () => {
  closeAll();
  if (nginx) await stopNginx(nginx);
  await cluster?.stop();
}, 30_000);

/**
 * An overlay whose connections leave from `localAddress` (127.0.0.x): another site's
 * address, which nginx's hash may send to another node. Keeps the match_data frames as received.
 */
async function overlayFrom(url: string, groupCode: string, localAddress: string): Promise<{ socket: Socket; raw: string[] }> {
  const agent = new http.Agent({ localAddress, keepAlive: true });
  const socket = io(url, { forceNew: true, reconnection: false, agent: agent as never });
  const raw: string[] = [];
  socket.on('match_data', (data: string) => raw.push(data));
  socket.on('disconnect', () => agent.destroy());
  await connected(socket);
  const ok = new Promise<void>((resolve) => socket.once('logon_success', () => resolve()));
  socket.emit('logon', JSON.stringify({ groupCode }));
  await ok;
  return { socket, raw };
}

const frontendsOn = async (node: ServiceProcess) =>
  (await scrapeMetrics(node.urls.metrics!)).value('ods_sockets', { listener: 'broadcast', kind: 'frontend' });

interface Status { status: string; matchesRunning: number; node: string; redis: string }

describe('two nodes behind nginx (deploy/nginx.conf)', () => {
  it('an observer plays the recorded match through nginx (polling, then WebSocket); an overlay through nginx receives it to game_end, and so does one at another address that nginx sends to the other node; /status answers through nginx from both nodes', async () => {
    const code = 'NGINX1';
    const urls = nginx!.urls;
    const watcher = await overlay(urls.broadcast, code);

    // The observer client: long-polling first, then the upgrade, all through nginx's ingestion port.
    const s = connectObserver(urls.ingest);
    const firstTransport = s.io.engine.transport.name;
    const upgrades: string[] = [];
    s.io.engine.on('upgrade', (t: { name: string }) => upgrades.push(t.name));
    await connected(s);
    const half = Math.floor(replay.records.length / 2);
    const run = await playReplay(replay, { url: urls.ingest, socket: s, key: CLUSTER_KEY, groupCode: code, pace: 'instant', to: half });
    expect(firstTransport).toBe('polling');
    await expect.poll(() => s.io.engine.transport.name).toBe('websocket');
    expect(upgrades).toEqual(['websocket']);

    // REST through nginx (least_conn over both nodes): each node counts the live match.
    const seen = new Map<string, Status>();
    await expect.poll(async () => {
      const res = await fetch(`${urls.rest}/status`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Status;
      if (body.matchesRunning >= 1) seen.set(body.node, body);
      return [...seen.keys()].sort();
    }, { timeout: 20_000 }).toEqual(['node-a', 'node-b']);
    for (const st of seen.values()) expect(st).toMatchObject({ status: 'UP', redis: 'up' });

    // An overlay at another address that nginx sends to the node that does not run the match.
    const logonsOf = () => cluster.nodes.map((n) => logLines(n, 'observer logged on').filter((l) => l.groupCode === code));
    await expect.poll(() => logonsOf().flat().length).toBe(1);
    const logons = logonsOf();
    const owner = cluster.nodes[logons.findIndex((l) => l.length === 1)];
    const other = cluster.nodes.find((n) => n !== owner)!;
    let remote: { socket: Socket; raw: string[] } | undefined;
    for (let i = 2; i < 64 && !remote; i++) {
      const before = await frontendsOn(other);
      const fe = await overlayFrom(urls.broadcast, code, `127.0.0.${i}`);
      if ((await frontendsOn(other)) > before) remote = fe;
      else fe.socket.close();
    }
    expect(remote, 'no loopback address 127.0.0.2-63 hashed to the other node').toBeDefined();

    await sendRecords(s, replay, { pace: 'instant', groupCode: code, from: half });
    await watcher.waitFor((f) => f.roundPhase === 'game_end', 90_000);
    // The overlay on the other node ends on the same final frame (it crossed Redis).
    const final = watcher.raw[watcher.raw.length - 1];
    await expect.poll(() => remote!.raw[remote!.raw.length - 1], { timeout: 30_000 }).toBe(final);
    await expect.poll(() => remote!.socket.io.engine.transport.name).toBe('websocket');
    expect(watcher.frames.length).toBeGreaterThan(10);
    await expect.poll(() => watcher.socket.io.engine.transport.name).toBe('websocket');

    // The node that took the logon logged the client's address nginx forwarded (X-Forwarded-For),
    // not nginx's own (its connections leave from 127.0.0.254).
    expect(logons.flat()[0].client).toBe('127.0.0.1');

    run.socket.close();
    remote!.socket.close();
  }, 150_000);
});
