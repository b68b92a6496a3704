// Connection floods against the built service as its own process: 5,000 sockets that connect
// (Engine.IO handshake and Socket.IO CONNECT) and then send nothing. The service's memory stays
// bounded, the sockets are closed after IDLE_SOCKET_TIMEOUT_MS, and a real observer still logs on
// meanwhile. With the default MAX_SOCKETS_PER_ADDRESS (1,000) the rest are refused outright.
// One service for both tests (issue 36: a start is 1.6 s of CPU), with the default socket cap: the
// 5,000 come from ten loopback addresses (127.0.0.2-11, 500 each, under the cap), the 2,000 of the
// second test from another one (127.0.0.20) and the observer from 127.0.0.1.
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, observer } from '../../helpers/clients.js';
import { scrapeMetrics } from '../../helpers/metrics.js';
import { spawnService as spawnEntry, type ServiceProcess } from '../../helpers/service-process.js';

const N = 5000;
/** The 5,000 from ten addresses, 500 each: under the default cap of 1,000 per address. */
const floodFrom = (i: number) => `127.0.0.${2 + Math.floor(i / 500)}`;
const CAPPED_FROM = '127.0.0.20';

const children: ServiceProcess[] = [];
afterAll(async () => {
  closeAll();
  for (const c of children) await c.stop('SIGKILL');
});

/** `node dist/main/index.js` (warnings only in its log), with its ingestion port, metrics port and RSS. */
async function spawnService(env: Record<string, string>): Promise<{ proc: ServiceProcess['proc']; ingest: number; metrics: number; rssMb(): number }> {
  const c = await spawnEntry({ AUTH_KEY: 'k', LOG_LEVEL: 'warn', ...env });
  children.push(c);
  return { proc: c.proc, ingest: c.ports.ingest, metrics: c.ports.metrics!, rssMb: () => c.rssBytes() / 2 ** 20 };
}

/** `n` raw WebSocket clients that complete the Engine.IO handshake and the Socket.IO CONNECT, then stay silent. */
async function silentSockets(port: number, n: number, from: (i: number) => string): Promise<{ open: () => number; refused: () => number; closedByServer: () => number; close(): void }> {
  const sockets: WebSocket[] = [];
  let open = 0;
  let refused = 0;
  let closedByServer = 0;
  for (let i = 0; i < n; i += 250) {
    await Promise.all(Array.from({ length: Math.min(250, n - i) }, (_, j) => new Promise<void>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/socket.io/?EIO=4&transport=websocket`, { perMessageDeflate: false, localAddress: from(i + j) });
      sockets.push(ws);
      let joined = false;
      ws.on('message', (data) => {
        const text = data.toString();
        if (text.startsWith('0')) ws.send('40');
        else if (text.startsWith('40')) { joined = true; open++; resolve(); }
        else if (text === '2') ws.send('3');
      });
      ws.on('unexpected-response', () => { refused++; resolve(); });
      ws.on('error', () => resolve());
      ws.on('close', () => { if (joined) { open--; closedByServer++; } resolve(); });
    })));
  }
  return { open: () => open, refused: () => refused, closedByServer: () => closedByServer, close: () => { for (const ws of sockets) ws.terminate(); } };
}

// The TCP connection cap (MAX_CONNECTIONS_PER_ADDRESS, test/main/sockets/connection-abuse.test.ts) would close
// most before their handshake: off. The idle timeout outlasts the flood itself (5,000 connections took
// 9-12 s on a loaded machine).
let started: ReturnType<typeof spawnService> | undefined;
const service = () => (started ??= spawnService({ MAX_CONNECTIONS_PER_ADDRESS: '0', IDLE_SOCKET_TIMEOUT_MS: '20000' }));

const gauge = async (metricsPort: number, kind: string) => (await scrapeMetrics(`http://127.0.0.1:${metricsPort}`)).value('ods_sockets', { listener: 'ingest', kind });

describe(`${N} sockets that connect and never log on`, () => {
  it('memory stays bounded, they are closed after the idle timeout, a real observer still gets in', async () => {
    const svc = await service();
    // Started and answering: the metrics listener counts no socket yet (the baseline).
    await expect.poll(() => gauge(svc.metrics, 'unauthenticated')).toBe(0);
    const before = svc.rssMb();
    const flood = await silentSockets(svc.ingest, N, floodFrom);
    expect(flood.open()).toBe(N);
    expect(await gauge(svc.metrics, 'unauthenticated')).toBe(N);
    const during = svc.rssMb();
    // A real observer logs on while they are there.
    const { socket: obs, ack } = await observer(`http://127.0.0.1:${svc.ingest}`, { obsName: 'o', key: 'k', groupCode: 'FLOODC' });
    expect(ack.value).toBe(true);
    // Closed by the service once idle; the logged-on observer stays.
    await expect.poll(() => flood.closedByServer(), { timeout: 45_000, interval: 200 }).toBe(N);
    expect(obs.connected).toBe(true);
    expect(await gauge(svc.metrics, 'unauthenticated')).toBe(0);
    expect(await gauge(svc.metrics, 'observer')).toBe(1);
    const perSocketKb = ((during - before) * 1024) / N;
    console.log(`idle sockets: RSS ${before.toFixed(0)} MB -> ${during.toFixed(0)} MB with ${N} open (${perSocketKb.toFixed(1)} KB each), ${svc.rssMb().toFixed(0)} MB after they were closed`);
    expect(perSocketKb).toBeLessThan(40);
    flood.close();
  }, 120_000);

  it('with the default cap of 1,000 per address, the rest are refused at the handshake', async () => {
    const svc = await service();
    const before = svc.rssMb();
    const flood = await silentSockets(svc.ingest, 2000, () => CAPPED_FROM);
    expect(flood.open()).toBe(1000);
    expect(flood.refused()).toBe(1000);
    expect(svc.rssMb() - before).toBeLessThan(60);
    expect((await scrapeMetrics(`http://127.0.0.1:${svc.metrics}`)).value('ods_connections_refused_total', { listener: 'ingest' })).toBe(1000);
    flood.close();
  }, 60_000);
});
