// Descriptor exhaustion (docs/reliability.md, "Connection abuse"): the built service started under
// `ulimit -n 256`, with a live match (observer and overlay connected), is filled with connections
// until it has no descriptor left. It does not crash, does not spin (uWS retried accept() in a busy
// loop), logs it once, counts it, keeps the live match going over the connections it has, and
// serves new clients again as soon as the connections are gone: nothing of the match is lost.
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, overlay, observer } from '../../helpers/clients.js';
import { scrapeMetrics } from '../../helpers/metrics.js';
import { destroyAll, openRaw, type RawConnection } from '../../helpers/raw-connections.js';
import { spawnService, type ServiceProcess } from '../../helpers/service-process.js';

const NOFILE = 256;
let svc: ServiceProcess | undefined;
const raw: RawConnection[] = [];
afterAll(async () => {
  closeAll();
  destroyAll(raw);
  await svc?.stop('SIGKILL');
});

const roster = JSON.stringify({ obsName: 'o', groupCode: 'FDFULL', type: 'roster', data: { name: 'P0', tagline: 'T', startTeam: '0', agentInternal: 'Hunter', playerId: 'p-0', position: 0, locked: true } });
const money = (m: number) => JSON.stringify({ obsName: 'o', groupCode: 'FDFULL', type: 'scoreboard', data: { playerId: 'p-0', agentInternal: 'Hunter', isAlive: true, initialArmor: 0, scoreboardWeaponInternal: 'x', currUltPoints: 0, maxUltPoints: 7, hasSpike: false, money: m, kills: 0, deaths: 0, assists: 0, startTeam: '0' } });
const moneyOf = (f: Record<string, unknown>) => (f.teams as { players: { money: number }[] }[])[0].players[0]?.money;
const exhaustedLines = () => svc!.out.filter((l) => l.includes('out of file descriptors')).length;

describe(`the service under ulimit -n ${NOFILE}`, () => {
  it('survives running out of descriptors and serves again once they are free, with nothing lost for a live match', async () => {
    // Raw connections are capped per address by default: off here, so one address can fill the process.
    svc = await spawnService({ AUTH_KEY: 'k', LOG_LEVEL: 'info', MAX_CONNECTIONS_PER_ADDRESS: '0', MAX_SOCKETS_PER_ADDRESS: '0' }, { nofile: NOFILE });
    expect(svc.out.some((l) => l.includes(`file descriptors: limit ${NOFILE}`))).toBe(true);

    // A live match: the observer (real client options) on WebSocket, an overlay watching it.
    const obs = await observer(svc.urls.ingest, { obsName: 'o', key: 'k', groupCode: 'FDFULL' });
    await expect.poll(() => obs.socket.io.engine.transport.name).toBe('websocket');
    const fe = await overlay(svc.urls.broadcast, 'FDFULL', ['websocket']);
    let sent = 0;
    obs.socket.emit('obs_data', roster);
    sent++;
    obs.socket.emit('obs_data', money(1));
    sent++;
    await fe.waitFor((f) => moneyOf(f) === 1);

    // Fill: more connections than the process has descriptors, on the REST and broadcast ports.
    for (let i = 0; i < 3 && exhaustedLines() === 0; i++) {
      raw.push(...await openRaw(svc.ports.rest, 'idle', 100), ...await openRaw(svc.ports.broadcast, 'idle', 100));
    }
    await expect.poll(exhaustedLines).toBeGreaterThan(0);

    // Out of descriptors: the match goes on over the connections it has; the process does not spin.
    const cpuBefore = svc.cpuSeconds();
    const at = Date.now();
    for (let m = 2; m <= 20; m++) {
      obs.socket.emit('obs_data', money(m));
      sent++;
    }
    await fe.waitFor((f) => moneyOf(f) === 20);
    await expect.poll(() => Date.now() - at >= 2000, { interval: 100 }).toBe(true);
    const cpuShare = (svc.cpuSeconds() - cpuBefore) / ((Date.now() - at) / 1000);
    expect(cpuShare).toBeLessThan(0.6); // a busy accept loop holds a whole core (1.0)
    expect(svc.proc.exitCode).toBe(null);

    // Free them: the service listens again and serves new clients.
    destroyAll(raw);
    const status = async () => (await fetch(`${svc!.urls.rest}/status`, { signal: AbortSignal.timeout(2000) }).catch(() => null))?.status;
    await expect.poll(status, { timeout: 20_000, interval: 250 }).toBe(200);
    const late = await overlay(svc.urls.broadcast, 'FDFULL');
    await late.waitFor((f) => moneyOf(f) === 20);
    obs.socket.emit('obs_data', money(21));
    sent++;
    await fe.waitFor((f) => moneyOf(f) === 21);
    await late.waitFor((f) => moneyOf(f) === 21);
    expect(obs.socket.connected).toBe(true);

    // Nothing lost: every message the observer sent was applied; one log line for the episode(s), counted.
    const applied = async () => {
      const m = await scrapeMetrics(svc!.urls.metrics!); // the shards report their totals once a second
      return m.value('ods_messages_applied_total', { type: 'roster' }) + m.value('ods_messages_applied_total', { type: 'scoreboard' });
    };
    await expect.poll(applied).toBe(sent);
    const m = await scrapeMetrics(svc.urls.metrics!);
    expect(m.value('ods_descriptor_exhaustions_total')).toBeGreaterThanOrEqual(1);
    expect(m.value('ods_descriptors_exhausted')).toBe(0);
    expect(exhaustedLines()).toBeLessThanOrEqual(2);
    await expect.poll(() => svc!.out.some((l) => l.includes('file descriptors free again'))).toBe(true);
  }, 60_000);
});
