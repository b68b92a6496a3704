// Abuse (issue: hardening): a flooding observer is shed by its per-socket budget and does not
// starve a real-rate observer; caps on live matches (total and per key) and sockets per address
// answer with clear refusals; sockets that never log on are closed after the idle timeout; the
// auxiliary clients can be switched off.
import { io, type Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, connect, connected, frontend, nextEvent, serverDisconnect } from './helpers/clients.js';
import { startTestService, type TestService } from './helpers/service.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TEAMS = { leftTeam: { name: 'L', tricode: 'L', url: '' }, rightTeam: { name: 'R', tricode: 'R', url: '' } };

let svc: TestService | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets) s.close();
  sockets.length = 0;
  closeAll();
  await svc?.close();
  svc = undefined;
});

async function observer(url: string, groupCode: string, key = 'k'): Promise<{ socket: Socket; ack: { value: boolean; reason: string } }> {
  const socket = connect(url);
  await connected(socket);
  const ack = nextEvent<string>(socket, 'obs_logon_ack');
  socket.emit('obs_logon', JSON.stringify({ type: 'authenticate', clientVersion: '0.3.3', obsName: 'o', key, groupCode, groupSecret: '', ...TEAMS }));
  return { socket, ack: JSON.parse(await ack) as { value: boolean; reason: string } };
}

const roster = (code: string, i: number) => JSON.stringify({ obsName: 'o', groupCode: code, type: 'roster', data: { name: `P${i}`, tagline: 'T', startTeam: '0', agentInternal: 'Hunter', playerId: `p-${i}`, position: 0, locked: true } });
const scoreboardMoney = (code: string, money: number) => JSON.stringify({ obsName: 'o', groupCode: code, type: 'scoreboard', data: { playerId: 'p-0', agentInternal: 'Hunter', isAlive: true, initialArmor: 0, scoreboardWeaponInternal: 'x', currUltPoints: 0, maxUltPoints: 7, hasSpike: false, money, kills: 0, deaths: 0, assists: 0, startTeam: '0' } });
const moneyOf = (f: Record<string, unknown>) => (f.teams as { players: { money: number }[] }[])[0].players[0]?.money;

describe('per-socket budget (200 msg/s, burst 100)', () => {
  it('sheds a flooder beyond its budget and backlog with a counted, logged reason, forwards it at 200/s; a 200 msg/s observer beside it loses nothing', async () => {
    svc = await startTestService({ AUTH_KEY: 'k', INGEST_RATE_PER_SOCKET: '200', INGEST_BURST_PER_SOCKET: '100' });
    const flood = await observer(svc.ingest, 'FLOOD1');
    const honest = await observer(svc.ingest, 'HONST1');
    const fe = await frontend(svc.broadcast, 'HONST1');
    for (const [s, code] of [[flood.socket, 'FLOOD1'], [honest.socket, 'HONST1']] as const) s.emit('obs_data', roster(code, 0));
    await fe.waitFor((f) => moneyOf(f) !== undefined);
    await sleep(600); // both buckets full again

    // The flooder: 5,000 messages at once. The honest observer: 600 messages at 200/s, the last one marked.
    const floodAt = Date.now();
    for (let i = 0; i < 5000; i++) flood.socket.emit('obs_data', scoreboardMoney('FLOOD1', i % 9000));
    // At most 200/s as sent: 5 ms after the previous send at the earliest (no catching up after a stall of this process).
    let last = 0;
    for (let i = 1; i <= 600; i++) {
      const wait = last + 5 - Date.now();
      if (wait > 0) await sleep(wait);
      last = Date.now();
      honest.socket.emit('obs_data', scoreboardMoney('HONST1', i));
    }
    await fe.waitFor((f) => moneyOf(f) === 600, 10_000);
    const { dropped, backlog } = svc.service.ingest;
    // Taken: the burst (100), the backlog (INGEST_BACKLOG_PER_SOCKET) and what the rate refilled while the flood arrived.
    const backlogBound = svc.service.config.INGEST_BACKLOG_PER_SOCKET;
    expect(backlog.peak).toBe(backlogBound);
    expect(dropped.rate_limited).toBeGreaterThan(5000 - 100 - backlogBound - 500);
    expect(dropped.rate_limited).toBeLessThan(5000 - 100 - backlogBound + 1);
    // The honest observer was never shed: every one of its messages reached the shard.
    const logs = svc.logs.map((l) => JSON.parse(l) as { msg?: string; reason?: string; socket?: string });
    const shed = logs.filter((j) => j.msg === 'ingestion message ignored' && j.reason === 'rate_limited');
    expect(shed.map((j) => j.socket)).toEqual([flood.socket.id]); // logged once, for the flooder only
    await expect.poll(() => svc!.service.matches.totals.latest[0]?.applied ?? 0, { timeout: 15_000 }).toBeGreaterThanOrEqual(2 + 600);
    // The flooder's messages reach its shard at the budget's rate, whatever waits: the burst plus 200/s
    // since the flood (plus slack for a stall of this process, which the budget credits).
    const floodApplied = (svc.service.matches.totals.latest[0]?.applied ?? 0) - 2 - 600;
    expect(floodApplied).toBeLessThan(100 + (200 * (Date.now() - floodAt)) / 1000 + 200);
  }, 30_000);
});

describe('caps', () => {
  it('refuses a match past MAX_LIVE_MATCHES and past MAX_MATCHES_PER_KEY with a reason; reconnections still work', async () => {
    svc = await startTestService({ REQUIRE_AUTH_KEY: 'false', MAX_LIVE_MATCHES: '3', MAX_MATCHES_PER_KEY: '2' });
    const a1 = await observer(svc.ingest, 'CAPA01', 'key-a');
    const a2 = await observer(svc.ingest, 'CAPA02', 'key-a');
    expect([a1.ack.value, a2.ack.value]).toEqual([true, true]);
    const a3 = await observer(svc.ingest, 'CAPA03', 'key-a');
    expect(a3.ack).toEqual({ type: 'authenticate', value: false, reason: 'Too many live matches for this key (2). End a match first.' });
    const b1 = await observer(svc.ingest, 'CAPB01', 'key-b');
    expect(b1.ack.value).toBe(true);
    const b2 = await observer(svc.ingest, 'CAPB02', 'key-b');
    expect(b2.ack).toEqual({ type: 'authenticate', value: false, reason: 'Server is at capacity (3 live matches). Try again later.' });
    expect(svc.service.shared.directory.count()).toBe(3);
    // A reconnection to a live match is not a new match.
    const again = connect(svc.ingest);
    await connected(again);
    const ack = nextEvent<string>(again, 'obs_logon_ack');
    again.emit('obs_logon', JSON.stringify({ type: 'authenticate', clientVersion: '0.3.3', obsName: 'o', key: 'key-b', groupCode: 'CAPB01', groupSecret: b1.ack.reason, ...TEAMS }));
    expect(JSON.parse(await ack)).toMatchObject({ value: true, reason: 'reconnected' });
    const metrics = await (await fetch(`http://127.0.0.1:${svc.service.ports.metrics}/metrics`)).text();
    expect(metrics).toMatch(/ods_sockets_closed_total\{listener="ingest",reason="capacity"\} 2/);
  });

  it('refuses a connection past MAX_SOCKETS_PER_ADDRESS on both listeners, and accepts again once one closed', async () => {
    svc = await startTestService({ AUTH_KEY: 'k', MAX_SOCKETS_PER_ADDRESS: '3' });
    for (const url of [svc.ingest, svc.broadcast]) {
      const limiter = url === svc.ingest ? svc.service.ingest.addresses : svc.service.broadcast.addresses;
      const open = [connect(url), connect(url), connect(url)];
      await Promise.all(open.map(connected));
      const fourth = io(url, { forceNew: true, reconnection: false, transports: ['polling'] });
      sockets.push(fourth);
      const err = await new Promise<Error>((resolve) => fourth.once('connect_error', resolve));
      expect(err.message).toMatch(/Too many connections from your address|xhr poll error|403/i);
      const ws = io(url, { forceNew: true, reconnection: false, transports: ['websocket'] });
      sockets.push(ws);
      await new Promise<Error>((resolve) => ws.once('connect_error', resolve));
      open[0].close();
      await expect.poll(() => limiter.count('127.0.0.1')).toBe(2); // the server saw the close
      const fifth = connect(url);
      await connected(fifth);
      fifth.close();
      for (const s of open) s.close();
      await expect.poll(() => limiter.count('127.0.0.1')).toBe(0);
    }
    expect(svc.service.ingest.addresses.refused).toBeGreaterThanOrEqual(2);
    expect(svc.service.broadcast.addresses.refused).toBeGreaterThanOrEqual(2);
  });

  it('refuses every auxiliary logon with AUX_CLIENTS_ENABLED=false', async () => {
    svc = await startTestService({ AUTH_KEY: 'k', AUX_CLIENTS_ENABLED: 'false' });
    const s = connect(svc.ingest);
    await connected(s);
    const ack = nextEvent<string>(s, 'aux_logon_ack');
    const gone = serverDisconnect(s);
    s.emit('aux_logon', JSON.stringify({ type: 'aux_authenticate', clientVersion: '0.3.3', matchId: 'm', playerId: 'p' }));
    expect(JSON.parse(await ack)).toEqual({ type: 'aux_authenticate', value: false, reason: 'Auxiliary clients are disabled on this server.' });
    await gone;
  });
});

describe('idle sockets', () => {
  it('closes sockets that connect and never log on (both listeners); logged-on ones stay, stale observers stay budgeted', async () => {
    // The idle timeout is well above the 50 ms between the stale socket's messages, stalls of this loaded process included.
    svc = await startTestService({ AUTH_KEY: 'k', IDLE_SOCKET_TIMEOUT_MS: '1500', INGEST_RATE_PER_SOCKET: '200', INGEST_BURST_PER_SOCKET: '100' });
    const idleIngest = connect(svc.ingest);
    const idleFrontend = connect(svc.broadcast);
    await Promise.all([connected(idleIngest), connected(idleFrontend)]);
    const gone = [serverDisconnect(idleIngest), serverDisconnect(idleFrontend)];
    const obs = await observer(svc.ingest, 'IDLE01');
    const fe = await frontend(svc.broadcast, 'IDLE01');
    // A socket without a session that keeps sending (an observer whose window passed): counted, logged once, budgeted.
    const stale = connect(svc.ingest);
    await connected(stale);
    const keepSending = setInterval(() => stale.emit('obs_data', roster('IDLE01', 9)), 50);
    try {
      expect(await Promise.all(gone)).toEqual(['io server disconnect', 'io server disconnect']);
      await sleep(600); // proves the others are not closed: past the idle timeout since they connected
    } finally {
      clearInterval(keepSending);
    }
    expect(obs.socket.connected).toBe(true);
    expect(fe.socket.connected).toBe(true);
    expect(stale.connected).toBe(true);
    for (let i = 0; i < 300; i++) stale.emit('obs_data', roster('IDLE01', 9));
    await expect.poll(() => svc!.service.ingest.dropped.rate_limited ?? 0).toBeGreaterThan(100);
    await expect.poll(() => svc!.service.ingest.dropped.unauthenticated ?? 0).toBeGreaterThan(10);
    const logs = svc.logs.map((l) => JSON.parse(l) as { msg?: string; reason?: string; socket?: string }).filter((j) => j.socket === stale.id && j.msg === 'ingestion message ignored');
    expect(logs.map((j) => j.reason).sort()).toEqual(['rate_limited', 'unauthenticated']);
    // Once it stops sending, it is idle too.
    expect(await serverDisconnect(stale)).toBe('io server disconnect');
    expect(svc.service.ingest.closed.idle).toBe(2);
    expect(svc.service.broadcast.closed.idle).toBe(1);
  }, 60_000);
});
