// Scale-out behind a real load balancer (README, "Running several nodes"): Debian's nginx
// (/usr/sbin/nginx; `.ci/run` installs nginx-light) runs deploy/nginx.conf, with its listen ports,
// upstream servers, TLS and file paths replaced for a test run, in front of two nodes on one Redis.
// Every client talks to nginx only, with the real clients' options (polling, then the upgrade).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, connectObserver, connected, frontend } from './helpers/clients.js';
import { CLUSTER_KEY, logLines, startCluster, type Cluster } from './helpers/cluster.js';
import { playReplay, recordedMatch, sendRecords } from './helpers/recorded.js';
import { NGINX, startNginx, stopNginx, type Nginx } from './helpers/nginx.js';

const replay = recordedMatch();

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

interface Status { status: string; matchesRunning: number; node: string; redis: string }

describe('two nodes behind nginx (deploy/nginx.conf)', () => {
  it('an observer plays the recorded match through nginx (polling, then WebSocket); an overlay through nginx receives it to game_end; /status answers through nginx from both nodes', async () => {
    const code = 'NGINX1';
    const urls = nginx!.urls;
    const overlay = await frontend(urls.broadcast, code);

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

    await sendRecords(s, replay, { pace: 'instant', groupCode: code, from: half });
    await overlay.waitFor((f) => f.roundPhase === 'game_end', 90_000);
    expect(overlay.frames.length).toBeGreaterThan(10);
    await expect.poll(() => overlay.socket.io.engine.transport.name).toBe('websocket');

    // The node that took the logon logged the client's address nginx forwarded (X-Forwarded-For),
    // not nginx's own (its connections leave from 127.0.0.3).
    const logons = cluster.nodes.flatMap((n) => logLines(n, 'observer logged on')).filter((l) => l.groupCode === code);
    expect(logons).toHaveLength(1);
    expect(logons[0].client).toBe('127.0.0.1');

    run.socket.close();
  }, 150_000);
});
