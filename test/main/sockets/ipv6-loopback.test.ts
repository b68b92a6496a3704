// Listening on IPv6 (issue 27, point 2; README, "IPv6"): with HOST=:: the three listeners are dual
// stack. One IPv6 address (::1) is held to the per-address caps like an IPv4 one, and counts apart
// from the IPv4 peers of the same listeners, which count as IPv4 (not as their IPv4-mapped IPv6
// form). Many IPv6 addresses of one /64: ipv6-netns.test.ts (as root) and address-keying.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, connect, connected, observer } from '../../helpers/clients.js';
import { scrapeMetrics } from '../../helpers/metrics.js';
import { destroyAll, openRaw, type RawConnection } from '../../helpers/raw-connections.js';
import { spawnService, type ServiceProcess } from '../../helpers/service-process.js';

const children: ServiceProcess[] = [];
const raw: RawConnection[] = [];
afterAll(async () => {
  closeAll();
  destroyAll(raw);
  for (const c of children) await c.stop('SIGKILL');
});

async function start(): Promise<ServiceProcess> {
  const svc = await spawnService({ HOST: '::', AUTH_KEY: 'k', LOG_LEVEL: 'warn', MAX_CONNECTIONS_PER_ADDRESS: '20', MAX_SOCKETS_PER_ADDRESS: '5' });
  children.push(svc);
  return svc;
}

describe('HOST=:: (dual stack)', () => {
  it('serves Socket.IO clients over IPv6 and IPv4; the sessions of ::1 are capped apart from those of 127.0.0.1', async () => {
    const svc = await start();
    // Real clients over IPv6: an observer logs on through [::1]; Socket.IO sessions from ::1 are capped at 5.
    const { ingest } = svc.ports;
    const url = `http://[::1]:${ingest}`;
    const obs = await observer(url, { key: 'k', groupCode: 'IPV6AA' });
    expect(obs.ack.value).toBe(true);
    const more = Array.from({ length: 5 }, () => connect(url));
    const outcomes = await Promise.all(more.map((s) => connected(s).then(() => 'connected', (e: Error) => e.message)));
    expect(outcomes.filter((o) => o === 'connected')).toHaveLength(4);
    expect(outcomes.filter((o) => o !== 'connected')).toHaveLength(1);
    // Over IPv4 (the same dual-stack listener) the IPv6 sessions do not count.
    const v4obs = await observer(`http://127.0.0.1:${ingest}`, { key: 'k', groupCode: 'IPV4AA' });
    expect(v4obs.ack.value).toBe(true);
    expect((await scrapeMetrics(svc.urls.metrics!)).value('ods_connections_refused_total', { listener: 'ingest' })).toBe(1);
  }, 60_000);

  it('::1 is capped like one address on every port, apart from 127.0.0.1, which counts (and is logged) as IPv4', async () => {
    const svc = await start();
    const ports = { ingest: svc.ports.ingest, rest: svc.ports.rest, broadcast: svc.ports.broadcast };
    // IPv4 first: 25 idle connections to each port, 5 closed at once; logged as 127.0.0.1.
    const v4: Record<string, RawConnection[]> = {};
    for (const [name, port] of Object.entries(ports)) raw.push(...(v4[name] = await openRaw(port, 'idle', 25)));
    for (const [name, conns] of Object.entries(v4)) {
      await expect.poll(() => conns.filter((c) => c.closedAfterMs !== null).length, { timeout: 5000 }).toBe(5);
      expect(conns.every((c) => c.closedAfterMs === null || c.closedAfterMs < 3000), name).toBe(true);
    }
    const lines = () => svc.out.filter((l) => l.includes('too many from one address')).map((l) => JSON.parse(l) as { listener: string; address: string });
    await expect.poll(() => lines().length).toBe(3);
    expect(lines().map((l) => l.address)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1']);

    // ::1: its own 20 on each port, whatever IPv4 holds; 10 more closed at once.
    const v6: Record<string, RawConnection[]> = {};
    for (const [name, port] of Object.entries(ports)) raw.push(...(v6[name] = await openRaw(port, 'partial', 30, 2000, { host: '::1' })));
    for (const [name, conns] of Object.entries(v6)) {
      expect(conns.every((c) => c.connected), name).toBe(true);
      await expect.poll(() => conns.filter((c) => c.closedAfterMs !== null).length, { timeout: 5000 }).toBe(10);
      expect(conns.filter((c) => c.closedAfterMs === null), name).toHaveLength(20);
    }
    const m = await scrapeMetrics(svc.urls.metrics!);
    for (const listener of Object.keys(ports)) expect(m.value('ods_tcp_connections_refused_total', { listener, reason: 'address' }), listener).toBe(15);
    // Two addresses are far from the table's bound: none dropped (the counter is exposed per uWS port).
    expect(m.samples.filter((x) => x.name === 'ods_address_buckets_dropped_total').map((x) => [x.labels.listener, x.value])).toEqual([['ingest', 0], ['rest', 0]]);
  }, 60_000);
});
