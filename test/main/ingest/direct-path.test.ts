// The hot events below socket.io's per-event dispatch (src/main/ingest/direct-path.ts, issue 28):
// once a socket is logged on (or has resumed its session), its obs_data and aux_data go from the
// decoder to the handlers (`ods_ingest_hot_events_total{path="direct"}`); before logon, with an
// ack id, or in a packet the decoder leaves to socket-io-parser they go through socket.io and are
// answered as before (`path="socketio"`); a packet for another namespace closes the connection as
// socket.io always did. Events keep their order whichever path each took.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { auxClient, auxLogon, closeAll, connect, connected, connectObserver, frontend, logon, observer as observerClient, observerLogon, serverDisconnect } from '../../helpers/clients.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { echoed, pollUntil } from '../../helpers/waits.js';

const KEY = 'k';
const MATCH_ID = '5b1c0e61-4a57-4f0e-9d0e-3c1f4a1e2d77';
let svc: TestService;
beforeAll(async () => { svc = await startTestService({ AUTH_KEY: KEY }); });
afterAll(async () => { closeAll(); await svc?.close(); });

const env = (groupCode: string, type: string, data: unknown) => JSON.stringify({ obsName: 'O', groupCode, type, data });
const logonFields = (groupCode: string) => ({ obsName: 'O', key: KEY, groupCode });

/** The hot events counted by path, and what was dropped and received, now. */
async function figures() {
  const m = await svc.metrics();
  return {
    direct: m.value('ods_ingest_hot_events_total', { path: 'direct' }),
    socketio: m.value('ods_ingest_hot_events_total', { path: 'socketio' }),
    received: m.value('ods_messages_received_total', { event: 'obs_data' }) + m.value('ods_messages_received_total', { event: 'aux_data' }),
    dropped: m.by('ods_messages_dropped_total', 'reason'),
  };
}
type Figures = Awaited<ReturnType<typeof figures>>;
const grew = (before: Figures, after: Figures) => ({
  direct: after.direct - before.direct, socketio: after.socketio - before.socketio, received: after.received - before.received,
  dropped: Object.fromEntries(Object.entries(after.dropped).map(([k, v]) => [k, v - (before.dropped[k] ?? 0)]).filter(([, v]) => v !== 0)),
});

describe('the hot events of a logged-on socket skip socket.io\'s per-event dispatch', () => {
  it('before logon through socket.io (dropped unauthenticated, as before), after logon directly, applied in order', async () => {
    const fe = await frontend(svc.broadcast, 'DIRP01');
    const s = connectObserver(svc.ingest);
    await connected(s);
    let before = await figures();
    s.emit('obs_data', env('DIRP01', 'map', 'Ascent'));
    await echoed(s);
    expect(grew(before, await figures())).toEqual({ direct: 0, socketio: 1, received: 1, dropped: { unauthenticated: 1 } });

    const { ack } = await logon(s, 'obs_logon', observerLogon(logonFields('DIRP01')));
    expect(ack.value).toBe(true);
    before = await figures();
    s.emit('obs_data', env('DIRP01', 'map', 'Ascent'));
    s.emit('obs_data', JSON.parse(env('DIRP01', 'map', 'Port')) as object); // an object payload: its JSON text, not parsed here
    s.emit('obs_data', env('DIRP01', 'game_mode', 'swift'));
    await fe.waitFor((f) => f.matchType === 'swift');
    expect(fe.frames.at(-1)!.map).toBe('Icebox'); // Port, the later of the two maps
    await echoed(s);
    expect(grew(before, await figures())).toEqual({ direct: 3, socketio: 0, received: 3, dropped: {} });
  });

  it('an event with an ack id goes through socket.io: two arguments, dropped bad_arguments as before', async () => {
    const { socket: s } = await observerClient(svc.ingest, logonFields('DIRP02'));
    const before = await figures();
    s.emit('obs_data', env('DIRP02', 'map', 'Port'), () => undefined);
    await echoed(s);
    expect(grew(before, await figures())).toEqual({ direct: 0, socketio: 1, received: 1, dropped: { bad_arguments: 1 } });
  });

  it('a resumed socket (no second logon) takes the direct path', async () => {
    const { socket: s } = await observerClient(svc.ingest, logonFields('DIRP03'), { transports: ['websocket'] });
    const fe = await frontend(svc.broadcast, 'DIRP03');
    const back = new Promise<void>((resolve) => s.io.once('reconnect', () => resolve()));
    s.io.engine.close(); // a transport drop: the client reconnects and presents its session
    await back;
    await pollUntil(async () => svc.logged({ msg: 'session resumed', groupCode: 'DIRP03' }).length === 1, 'the session resumed');
    const before = await figures();
    s.emit('obs_data', env('DIRP03', 'game_mode', 'swift'));
    await fe.waitFor((f) => f.matchType === 'swift');
    expect(grew(before, await figures())).toMatchObject({ direct: 1, socketio: 0, received: 1 });
  });

  it('aux_data of a logged-on auxiliary client takes the direct path', async () => {
    const { socket: obs } = await observerClient(svc.ingest, logonFields('DIRP04'));
    const fe = await frontend(svc.broadcast, 'DIRP04');
    obs.emit('obs_data', env('DIRP04', 'roster', {
      name: 'Stella', tagline: 'A1', startTeam: '0', agentInternal: 'Rift', playerId: 'p-astra', position: 0, locked: true, rank: 0,
    }));
    obs.emit('obs_data', env('DIRP04', 'match_start', MATCH_ID));
    await fe.waitFor((f) => f.matchId === MATCH_ID);
    const { socket: aux, ack } = await auxClient(svc.ingest, auxLogon({ matchId: MATCH_ID, playerId: 'p-astra' }));
    expect(ack.value).toBe(true);
    const before = await figures();
    aux.emit('aux_data', JSON.stringify({ playerId: 'p-astra', matchId: MATCH_ID, type: 'aux_health', data: 57 }));
    type Player = { riotId: string; health: number };
    await fe.waitFor((f) => (f as { teams: { players: Player[] }[] }).teams.some((t) => t.players.some((p) => p.riotId === 'p-astra' && p.health === 57)));
    await echoed(aux);
    expect(grew(before, await figures())).toEqual({ direct: 1, socketio: 0, received: 1, dropped: {} });
  });
});

describe('order and the packets the decoder leaves to socket.io', () => {
  /** A socket.io packet written on the client's Engine.IO connection as it is (what socket.io-client never sends itself). */
  const raw = (s: Socket, packet: string) => s.io.engine.write(packet);

  it('a logged-on socket\'s events arrive in order whichever path each took (one polling request carrying both kinds)', async () => {
    const { socket: s } = await observerClient(svc.ingest, logonFields('DIRP05'), { transports: ['polling'] });
    const fe = await frontend(svc.broadcast, 'DIRP05');
    const before = await figures();
    // The first write goes out at once; the next three wait for it and leave in one request, so
    // the service decodes them in one go: the first and the last through socket.io (a space after
    // the comma: socket-io-parser's to decode), the middle one directly.
    raw(s, '2["test_echo","first"]');
    raw(s, `2["obs_data", ${JSON.stringify(env('DIRP05', 'map', 'Ascent'))}]`);
    raw(s, `2["obs_data",${JSON.stringify(env('DIRP05', 'map', 'Port'))}]`);
    raw(s, `2["obs_data", ${JSON.stringify(env('DIRP05', 'game_mode', 'swift'))}]`);
    await fe.waitFor((f) => f.matchType === 'swift');
    expect(fe.frames.at(-1)!.map).toBe('Icebox'); // Port came after Ascent: had it overtaken it, the map would be Ascent's
    await echoed(s);
    expect(grew(before, await figures())).toEqual({ direct: 1, socketio: 2, received: 3, dropped: {} });
  });

  it('a hot event for another namespace closes the connection, as socket.io does with any packet of a namespace not joined', async () => {
    const { socket: s } = await observerClient(svc.ingest, logonFields('DIRP06'), { reconnection: false });
    const before = await figures();
    const gone = serverDisconnect(s);
    raw(s, `2/other,["obs_data",${JSON.stringify(env('DIRP06', 'map', 'Port'))}]`);
    expect(await gone).toBe('transport close');
    expect(grew(before, await figures())).toEqual({ direct: 0, socketio: 0, received: 0, dropped: {} });
    // The listener goes on: a new socket logs on and sends directly.
    const again = connect(svc.ingest);
    expect((await logon(again, 'obs_logon', observerLogon(logonFields('DIRP07')))).ack.value).toBe(true);
    const b2 = await figures();
    again.emit('obs_data', env('DIRP07', 'map', 'Port'));
    await echoed(again);
    expect(grew(b2, await figures())).toMatchObject({ direct: 1, socketio: 0, received: 1 });
  });
});
