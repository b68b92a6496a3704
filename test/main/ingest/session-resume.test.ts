// Transport drops on the ingestion listener (docs/client-contract.md 1.5, required behaviour g). The observer is
// a real socket.io-client with reconnection on that, like the real client, never sends obs_logon
// again after an automatic reconnection. Covered: built-in connection state recovery; the
// service's own pid table when the recovery offset is unusable and when the client is back before
// the server saw the drop; emits buffered while disconnected; auxiliary sessions; and the
// unauthenticated path for a pid the service does not resume (unknown, or its window passed: when
// the window ends is the session store's own test, test/main/sessions/session-store.contract.ts, since
// RECOVERY_WINDOW_MS is at least 120 s).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io, type Socket } from 'socket.io-client';
import { auxClient, auxLogon, closeAll, connected, overlay, logon, observerLogon, serverDisconnect } from '../../helpers/clients.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { lastOffset, sessionPid, setLastOffset, webSocketOf } from '../../helpers/internals/socketio-client.js';
import { tcpOf } from '../../helpers/internals/ws.js';

const AUTH_KEY = 'RESUME-TEST-KEY';
const MATCH_ID = '6f1d3c2a-0000-4000-8000-5e55105e0001';

const opened: Socket[] = [];
/** Like the real client (docs/client-contract.md 1.3), with shorter backoff. */
function realClient(url: string, auth?: Record<string, unknown>): Socket {
  const s = io(url, { forceNew: true, reconnection: true, reconnectionDelay: 200, reconnectionDelayMax: 400, rejectUnauthorized: false, ...(auth ? { auth } : {}) });
  opened.push(s);
  return s;
}

const obsEnv = (groupCode: string, type: string, data: unknown) => JSON.stringify({ obsName: 'Obs#1', groupCode, type, data });

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ AUTH_KEY });
});
afterAll(async () => {
  for (const s of opened) s.close();
  closeAll();
  await svc?.close();
});

/** Logs a real client on (once) and counts every ack it ever gets. */
async function logonObserver(s: Socket, groupCode: string): Promise<{ acks: string[] }> {
  const acks: string[] = [];
  s.on('obs_logon_ack', (a: string) => acks.push(a));
  const { ack } = await logon(s, 'obs_logon', observerLogon({
    obsName: 'Obs#1', key: AUTH_KEY, groupCode,
    leftTeam: { name: 'Left', tricode: 'LFT', url: '', attackStart: true }, rightTeam: { name: 'Right', tricode: 'RGT', url: '', attackStart: false },
  }));
  expect(ack.value).toBe(true);
  expect(sessionPid(s)).toBeTruthy(); // the server issued a pid (recovery on)
  return { acks };
}

/**
 * Cuts the transport under the client and resolves after its automatic reconnection. 'reset'
 * destroys the TCP connection of the (upgraded) websocket, like a network reset; 'close' closes the
 * engine.io connection from the client side.
 */
async function dropTransport(s: Socket, whileDown?: () => void, how: 'reset' | 'close' = 'reset'): Promise<void> {
  const reconnected = new Promise<void>((resolve) => s.io.once('reconnect', () => resolve()));
  const down = new Promise<string>((resolve) => s.once('disconnect', (reason: string) => resolve(reason)));
  if (how === 'reset') {
    await expect.poll(() => s.io.engine.transport.name).toBe('websocket');
    tcpOf(webSocketOf(s)!).destroy();
    expect(await down).toBe('transport close');
  } else {
    s.io.engine.close();
    expect(await down).toBe('forced close');
  }
  whileDown?.();
  await reconnected;
  await connected(s);
}

const resumedLogs = (groupCode: string) => svc.logs.map((l) => JSON.parse(l) as { msg?: string; groupCode?: string; recovered?: boolean })
  .filter((j) => j.msg === 'session resumed' && j.groupCode === groupCode);

describe('observer transport drop', () => {
  it('built-in recovery: data sent after (and buffered during) the drop is applied, without a new logon', async () => {
    const code = 'RES001';
    const fe = await overlay(svc.broadcast, code);
    const s = realClient(svc.ingest);
    const { acks } = await logonObserver(s, code);
    const pid = sessionPid(s);
    s.emit('obs_data', obsEnv(code, 'map', 'Ascent'));
    await fe.waitFor((f) => f.map === 'Ascent');

    await dropTransport(s, () => s.emit('obs_data', obsEnv(code, 'map', 'Duality'))); // buffered by the client
    expect(s.recovered).toBe(true);
    expect(sessionPid(s)).toBe(pid);
    await fe.waitFor((f) => f.map === 'Bind');
    s.emit('obs_data', obsEnv(code, 'map', 'Triad'));
    await fe.waitFor((f) => f.map === 'Haven');
    expect(acks).toHaveLength(1);
    expect(resumedLogs(code).map((j) => j.recovered)).toEqual([true]);
    expect(await svc.admin.has(code)).toBe(true);
    s.close();
  });

  it('unusable recovery offset: the pid table resumes the session (twice in a row, re-keyed under the new pid; network reset, then client-side close)', async () => {
    const code = 'RES002';
    const fe = await overlay(svc.broadcast, code);
    const s = realClient(svc.ingest);
    const { acks } = await logonObserver(s, code);
    const pid1 = sessionPid(s);

    setLastOffset(s, 'bogus-offset'); // as if the stored packet had expired
    await dropTransport(s, () => s.emit('obs_data', obsEnv(code, 'map', 'Pitt')));
    expect(s.recovered).toBe(false);
    const pid2 = sessionPid(s);
    expect(pid2).toBeTruthy();
    expect(pid2).not.toBe(pid1);
    await fe.waitFor((f) => f.map === 'Pearl');
    s.emit('obs_data', obsEnv(code, 'map', 'Jam'));
    await fe.waitFor((f) => f.map === 'Lotus');

    // A second drop: the session must now be found under the new pid.
    setLastOffset(s, 'bogus-offset-2');
    await dropTransport(s, undefined, 'close');
    expect(s.recovered).toBe(false);
    expect(sessionPid(s)).not.toBe(pid2);
    s.emit('obs_data', obsEnv(code, 'map', 'Juliett'));
    await fe.waitFor((f) => f.map === 'Sunset');
    expect(acks).toHaveLength(1);
    expect(resumedLogs(code).map((j) => j.recovered)).toEqual([false, false]);
    s.close();
  });

  it('back before the server saw the drop: the new connection takes the session over and the old socket is closed', async () => {
    const code = 'RES003';
    const fe = await overlay(svc.broadcast, code);
    const old = realClient(svc.ingest);
    await logonObserver(old, code);
    old.emit('obs_data', obsEnv(code, 'map', 'Canyon'));
    await fe.waitFor((f) => f.map === 'Fracture');
    const pid = sessionPid(old)!;
    const offset = lastOffset(old);

    // The "new connection" of a client whose network stack reset: same pid/offset, old socket still open on the server.
    const oldClosed = serverDisconnect(old);
    const fresh = realClient(svc.ingest, { pid, offset });
    await connected(fresh);
    expect(fresh.recovered).toBe(false);
    expect(await oldClosed).toBe('io server disconnect');
    fresh.emit('obs_data', obsEnv(code, 'map', 'Foxtrot'));
    await fe.waitFor((f) => f.map === 'Breeze');
    // Its own pid now holds the session: a later drop is resumed too. (The auth option only
    // served to present the old pid once; socket.io-client would otherwise send it on every
    // reconnection, over its own pid.)
    (fresh as unknown as { auth: unknown }).auth = undefined;
    setLastOffset(fresh, 'bogus');
    await dropTransport(fresh);
    fresh.emit('obs_data', obsEnv(code, 'map', 'Bonsai'));
    await fe.waitFor((f) => f.map === 'Split');
    fresh.close();
  });

  it('a fresh connection presenting the pid and a bogus offset also takes over', async () => {
    const code = 'RES004';
    const fe = await overlay(svc.broadcast, code);
    const first = realClient(svc.ingest);
    await logonObserver(first, code);
    const pid = sessionPid(first)!;
    const firstClosed = serverDisconnect(first);
    const second = realClient(svc.ingest, { pid, offset: 'bogus' });
    await connected(second);
    second.emit('obs_data', obsEnv(code, 'map', 'Port'));
    await fe.waitFor((f) => f.map === 'Icebox');
    expect(await firstClosed).toBe('io server disconnect');
    second.close();
  });

  it('an unknown pid gets an unauthenticated socket: its data is ignored and logged once as unauthenticated', async () => {
    const code = 'RES005';
    const fe = await overlay(svc.broadcast, code);
    const owner = realClient(svc.ingest);
    await logonObserver(owner, code);
    await fe.waitFor(() => true);
    const stranger = realClient(svc.ingest, { pid: 'no-such-pid-0000', offset: 'x' });
    await connected(stranger);
    const unauthenticated = () => svc.metric('ods_messages_dropped_total', { reason: 'unauthenticated' });
    const before = await unauthenticated();
    stranger.emit('obs_data', obsEnv(code, 'map', 'Ascent'));
    stranger.emit('obs_data', obsEnv(code, 'map', 'Ascent'));
    stranger.emit('obs_data', obsEnv(code, 'map', 'Ascent'));
    await expect.poll(async () => (await unauthenticated()) - before).toBe(3);
    owner.emit('obs_data', obsEnv(code, 'map', 'Jam'));
    await fe.waitFor((f) => f.map === 'Lotus');
    expect(fe.frames.some((f) => f.map === 'Ascent')).toBe(false);
    const lines = svc.logs.map((l) => JSON.parse(l) as { reason?: string; socket?: string }).filter((j) => j.reason === 'unauthenticated' && j.socket === stranger.id);
    expect(lines).toHaveLength(1);
    expect(owner.connected).toBe(true); // the owner's session is untouched
    owner.close();
  });
});

describe('auxiliary transport drop', () => {
  it('an auxiliary session survives a drop: the flags clear when the server sees it, data after the reconnect applies', async () => {
    const code = 'RESAUX';
    const fe = await overlay(svc.broadcast, code);
    const obs = realClient(svc.ingest);
    await logonObserver(obs, code);
    obs.emit('obs_data', obsEnv(code, 'roster', { name: 'Lumen', tagline: 'NA1', startTeam: '0', agentInternal: 'Hunter', playerId: 'p-aux', position: 0, locked: true, rank: 0 }));
    obs.emit('obs_data', obsEnv(code, 'match_start', MATCH_ID));
    await fe.waitFor((f) => f.matchId === MATCH_ID);
    type P = { riotId: string; health: number; auxiliaryAvailable: { health: boolean } };
    const p = (f: Record<string, unknown>) => (f.teams as { players: P[] }[])[0].players.find((x) => x.riotId === 'p-aux');

    const a = realClient(svc.ingest);
    const acks: string[] = [];
    a.on('aux_logon_ack', (x: string) => acks.push(x));
    const { ack } = await logon(a, 'aux_logon', auxLogon({ name: 'Lumen#NA1', matchId: MATCH_ID, playerId: 'p-aux' }));
    expect(acks).toHaveLength(1);
    expect(ack).toEqual({ type: 'aux_authenticate', value: true, reason: '' });
    const aux = (health: number) => JSON.stringify({ playerId: 'p-aux', matchId: MATCH_ID, type: 'aux_health', data: health });
    a.emit('aux_data', aux(70));
    await fe.waitFor((f) => p(f)?.health === 70 && p(f)?.auxiliaryAvailable.health === true);

    await dropTransport(a);
    expect(a.recovered).toBe(true);
    await fe.waitFor((f) => p(f)?.health === 70 && p(f)?.auxiliaryAvailable.health === false);
    a.emit('aux_data', aux(71));
    await fe.waitFor((f) => p(f)?.health === 71 && p(f)?.auxiliaryAvailable.health === true);

    setLastOffset(a, 'bogus');
    await dropTransport(a);
    expect(a.recovered).toBe(false);
    a.emit('aux_data', aux(72));
    await fe.waitFor((f) => p(f)?.health === 72 && p(f)?.auxiliaryAvailable.health === true);
    expect(acks).toHaveLength(1);

    // The resumed session is live again: a second client for the same player is refused.
    const dup = await auxClient(svc.ingest, { name: 'x', matchId: MATCH_ID, playerId: 'p-aux' });
    expect(dup.ack.value).toBe(false);
    a.close();
    obs.close();
  });
});
