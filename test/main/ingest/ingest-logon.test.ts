// obs_logon end to end (docs/client-contract.md 2.3, docs/match-rules.md 2.6, 3): every ack reason with its exact
// text, the disconnect after each failure, the reconnection logon that changes nothing, obs_data
// routing by the session's group (cross-group writes, unauthenticated sockets), the snapshot a
// overlay gets when it logs on mid-match, and that no secret reaches a frame or a log line.
import { describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { SERVICE_VERSION } from '../../../src/main/base/version.js';
import { connect, connected, overlay, observer as observerClient, observerLogon, refusedLogon } from '../../helpers/clients.js';
import { serviceForFile } from '../../helpers/service.js';
import { echoed } from '../../helpers/waits.js';

const AUTH_KEY = 'LOGON-TEST-KEY-7f3a9c';
const CAM_SECRET = 'CAMSECRET-logon-4411';

const LEFT = { name: 'Alpha', tricode: 'ALP', url: 'https://cdn.example.org/alpha.png', attackStart: true };
const RIGHT = { name: 'Bravo', tricode: 'BRV', url: 'https://cdn.example.org/bravo.png', attackStart: false };
const TOOLS = {
  tournamentInfo: { logoUrl: 'https://cdn.example.org/cup.png', backdropUrl: '', timeoutDuration: 60, showMappool: false },
  timeoutCounter: { max: 2, left: 2, right: 2 },
  playercamsInfo: { enable: true, removeTricodes: false, identifier: 'PCLOG1', secret: CAM_SECRET, endTime: 1774036800000 },
};

function packet(groupCode: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return observerLogon({ key: AUTH_KEY, groupCode, leftTeam: LEFT, rightTeam: RIGHT, toolsData: TOOLS, ...extra });
}

const env = (groupCode: string, type: string, data: unknown) => JSON.stringify({ obsName: 'Observer#EUW', groupCode, type, data });

type Ack = { type: string; value: boolean; reason: string };

/** Every secret issued in this file: none may show up in a frame or a log line. */
const issuedSecrets: string[] = [];
const overlays: { raw: string[] }[] = [];

const svc = serviceForFile({ AUTH_KEY });

/** A logon that must fail: returns the acks (raw) and the order of ack and disconnect. */
const refused = (payload: unknown, transports?: ('polling' | 'websocket')[]) => refusedLogon(svc.ingest, 'obs_logon', payload, transports);

function expectRefusal(r: { acks: string[]; order: string[]; reason: string }, reason: string): void {
  expect(r.acks).toHaveLength(1);
  expect(typeof r.acks[0]).toBe('string');
  expect(JSON.parse(r.acks[0])).toEqual({ type: 'authenticate', value: false, reason });
  expect(r.order).toEqual(['ack', 'disconnect']);
  expect(r.reason).toBe('io server disconnect');
}

/** A successful logon on a fresh socket (the payload as given: a JSON string or a plain object). */
async function observer(payload: string | Record<string, unknown>): Promise<{ s: Socket; ack: Ack; raw: string }> {
  const { socket: s, ack, raw } = await observerClient(svc.ingest, payload, { asObject: true });
  expect(typeof raw).toBe('string');
  if (ack.value && ack.reason !== 'reconnected') issuedSecrets.push(ack.reason);
  return { s, ack, raw };
}

describe('obs_logon check 1: Invalid packet.', () => {
  const base = packet('BADPKT');
  const cases: [string, unknown][] = [
    ['a non-JSON string', '{"type":"authenticate",'],
    ['a JSON string that is not an object', '"authenticate"'],
    ['a number', 42],
    ['an array', [base]],
    ['the auxiliary type', JSON.stringify({ ...base, type: 'aux_authenticate' })],
    ['no type', JSON.stringify({ ...base, type: undefined })],
    ['no groupCode', JSON.stringify({ ...base, groupCode: undefined })],
    ['an empty groupCode', JSON.stringify({ ...base, groupCode: '' })],
    ['a numeric groupCode', JSON.stringify({ ...base, groupCode: 123456 })],
    ['no leftTeam', JSON.stringify({ ...base, leftTeam: undefined })],
    ['leftTeam as a string', JSON.stringify({ ...base, leftTeam: 'Alpha' })],
    ['no rightTeam', JSON.stringify({ ...base, rightTeam: undefined })],
    ['rightTeam null', JSON.stringify({ ...base, rightTeam: null })],
    ['rightTeam without a name', JSON.stringify({ ...base, rightTeam: { tricode: 'BRV', url: '' } })],
  ];
  it.each(cases)('%s is answered "Invalid packet." and disconnected', async (_name, payload) => {
    expectRefusal(await refused(payload), 'Invalid packet.');
  });

  it('over websocket only, too', async () => {
    expectRefusal(await refused('not json', ['websocket']), 'Invalid packet.');
  });

  it('an invalid packet creates no match', async () => {
    expect(await svc.admin.has('BADPKT')).toBe(false);
  });
});

describe('obs_logon check 2: client version', () => {
  const msg = (v: string) => `Client version ${v} is not compatible with server version ${SERVICE_VERSION}.`;
  it('the service names its real version', () => {
    expect(SERVICE_VERSION).toMatch(/^\d+\.\d+\.\d+/);
    expect(SERVICE_VERSION).not.toBe('undefined');
  });
  it.each([
    ['0.2.46', '0.2.46'],
    ['0.4.0', '0.4.0'],
    ['a prerelease in range (0.3.4-beta.1)', '0.3.4-beta.1'],
    ['the invalid old prerelease 0.2.0-rc_1', '0.2.0-rc_1'],
  ])('%s is refused with the exact reason', async (_name, version) => {
    expectRefusal(await refused(JSON.stringify(packet('VERS01', { clientVersion: version }))), msg(version));
  });
  it('an absent clientVersion is named "undefined"', async () => {
    expectRefusal(await refused(JSON.stringify(packet('VERS01', { clientVersion: undefined }))), msg('undefined'));
  });
  it('the version is checked before the key', async () => {
    expectRefusal(await refused(JSON.stringify(packet('VERS01', { clientVersion: '0.2.46', key: 'wrong' }))), msg('0.2.46'));
  });
  it('0.3.0 is accepted', async () => {
    const { ack, s } = await observer(JSON.stringify(packet('VERS03', { clientVersion: '0.3.0' })));
    expect(ack.value).toBe(true);
    s.close();
  });
  it('a refused version creates no match', async () => {
    expect(await svc.admin.has('VERS01')).toBe(false);
  });
});

describe('obs_logon check 3: key', () => {
  it.each([
    ['a wrong key', 'not-the-key'],
    ['an empty key', ''],
    ['the key with another case', AUTH_KEY.toLowerCase()],
  ])('%s is answered "Invalid Key" and disconnected', async (_name, key) => {
    expectRefusal(await refused(JSON.stringify(packet('KEYS01', { key }))), 'Invalid Key');
  });
  it('a missing key is "Invalid Key"', async () => {
    expectRefusal(await refused(JSON.stringify(packet('KEYS01', { key: undefined }))), 'Invalid Key');
  });
  it('a refused key creates no match', async () => {
    expect(await svc.admin.has('KEYS01')).toBe(false);
  });
});

describe('obs_logon checks 4–6: new match, live match, reconnection', () => {
  const code = 'LIVE01';
  let secret = '';
  let first: Socket;
  let fe: Awaited<ReturnType<typeof overlay>>;

  it('check 6: a new group code creates a match; the ack reason is a 16-character secret', async () => {
    fe = await overlay(svc.broadcast, code);
    overlays.push(fe);
    const { s, ack } = await observer(JSON.stringify(packet(code)));
    first = s;
    expect(ack).toEqual({ type: 'authenticate', value: true, reason: expect.stringMatching(/^[A-Z0-9]{16}$/) });
    secret = ack.reason;
    expect(await svc.admin.has(code)).toBe(true);
    const lobby = await fe.waitFor((f) => f.groupCode === code);
    expect(lobby.roundPhase).toBe('LOBBY');
    expect((lobby.teams as { teamName: string }[]).map((t) => t.teamName)).toEqual(['Alpha', 'Bravo']);
    expect(first.connected).toBe(true);
  });

  it('a second match gets a different secret', async () => {
    const { s, ack } = await observer(JSON.stringify(packet('LIVE02')));
    expect(ack.value).toBe(true);
    expect(ack.reason).toMatch(/^[A-Z0-9]{16}$/);
    expect(ack.reason).not.toBe(secret);
    s.close();
  });

  it.each([
    ['no groupSecret', () => ({ groupSecret: undefined })],
    ['an empty groupSecret', () => ({ groupSecret: '' })],
    ['a wrong groupSecret', () => ({ groupSecret: 'AAAAAAAAAAAAAAAA' })],
    ['the secret in lower case', () => ({ groupSecret: secret.toLowerCase() })],
    ['the secret with one character more', () => ({ groupSecret: secret + 'A' })],
    ['a numeric groupSecret', () => ({ groupSecret: 1234 })],
  ])('check 4: %s for a live code is refused and disconnected', async (_name, extra) => {
    expectRefusal(await refused(JSON.stringify(packet(code, extra()))), `Game with Group Code ${code} exists and is still live.`);
  });

  it('check 4 comes after the key check', async () => {
    expectRefusal(await refused(JSON.stringify(packet(code, { key: 'nope' }))), 'Invalid Key');
  });

  it('check 5: the right secret is "reconnected" and changes nothing: no new frame, teams and tools kept', async () => {
    await expect.poll(async () => (await svc.frameNo(code)) === fe.frames.length).toBe(true); // fe holds every frame published
    const before = fe.frames.length;
    expect(before).toBeGreaterThan(0);
    const { s, ack } = await observer(JSON.stringify(packet(code, {
      groupSecret: secret,
      leftTeam: { name: 'Changed', tricode: 'CHG', url: 'https://evil.example/c.png', attackStart: false },
      rightTeam: { name: 'Other', tricode: 'OTH', url: '', attackStart: true },
      toolsData: { tournamentInfo: { logoUrl: 'https://evil.example/cup.png', backdropUrl: '' }, timeoutCounter: { max: 5, left: 5, right: 5 } },
    })));
    expect(ack).toEqual({ type: 'authenticate', value: true, reason: 'reconnected' });
    // The reconnected socket is an observer session of the group: its data is applied. Its frame is
    // the marker: a frame the logon made would have been published before it (or merged into it:
    // teams and tools are checked below), so the logon made no frame.
    s.emit('obs_data', env(code, 'map', 'Ascent'));
    const f = await fe.waitFor((x) => x.map === 'Ascent');
    expect(fe.frames.indexOf(f)).toBe(before);
    expect((f.teams as { teamName: string; teamTricode: string }[]).map((t) => [t.teamName, t.teamTricode])).toEqual([['Alpha', 'ALP'], ['Bravo', 'BRV']]);
    const tools = f.tools as { tournamentInfo: { logoUrl: string }; timeoutCounter: { max: number } };
    expect(tools.tournamentInfo.logoUrl).toBe('https://cdn.example.org/cup.png');
    expect(tools.timeoutCounter.max).toBe(2);
    // The earlier session stays valid.
    first.emit('obs_data', env(code, 'map', 'Duality'));
    await fe.waitFor((x) => x.map === 'Bind');
    s.close();
  });

  it('check 0: a second obs_logon on an authenticated socket gets no ack and changes nothing', async () => {
    const acks: string[] = [];
    first.on('obs_logon_ack', (a: string) => acks.push(a));
    await expect.poll(async () => (await svc.frameNo(code)) === fe.frames.length).toBe(true); // fe holds every frame published
    const before = fe.frames.length;
    const repeated = () => svc.metric('ods_messages_dropped_total', { reason: 'repeated_logon' });
    const repeatedBefore = await repeated();
    first.emit('obs_logon', JSON.stringify(packet('LIVE03')));
    first.emit('obs_logon', JSON.stringify(packet(code, { groupSecret: secret })));
    first.emit('obs_logon', 'garbage');
    // Check 0 drops at once (no ack, nothing sent to a shard): the echo after them proves it ran.
    await echoed(first);
    expect(await repeated() - repeatedBefore).toBe(3);
    expect(acks).toEqual([]);
    expect(first.connected).toBe(true);
    expect(await svc.admin.has('LIVE03')).toBe(false);
    // Still the same session; its frame is the next one (the marker: no frame came before it).
    first.emit('obs_data', env(code, 'map', 'Triad'));
    const f = await fe.waitFor((x) => x.map === 'Haven');
    expect(fe.frames.indexOf(f)).toBe(before);
  });

  it('a payload as a plain object works and is answered with a JSON string', async () => {
    const { ack, raw, s } = await observer(packet('OBJ001'));
    expect(typeof raw).toBe('string');
    expect(ack.value).toBe(true);
    expect(ack.reason).toMatch(/^[A-Z0-9]{16}$/);
    const { ack: again } = await observer(packet('OBJ001', { groupSecret: ack.reason }));
    expect(again).toEqual({ type: 'authenticate', value: true, reason: 'reconnected' });
    const r = await refused(packet('OBJ001'));
    expectRefusal(r, 'Game with Group Code OBJ001 exists and is still live.');
    s.close();
  });
});

describe('obs_data routing', () => {
  it('an observer of group A naming group B in its envelope changes neither match; the drop is logged', async () => {
    const feA = await overlay(svc.broadcast, 'GRPA01');
    const feB = await overlay(svc.broadcast, 'GRPB01');
    overlays.push(feA, feB);
    const a = await observer(JSON.stringify(packet('GRPA01')));
    const b = await observer(JSON.stringify(packet('GRPB01')));
    await feA.waitFor(() => true);
    await feB.waitFor(() => true);
    await expect.poll(async () => (await svc.frameNo('GRPB01')) === feB.frames.length).toBe(true); // feB holds every frame published
    const bFramesBefore = feB.frames.length;
    a.s.emit('obs_data', env('GRPB01', 'map', 'Foxtrot'));
    a.s.emit('obs_data', JSON.stringify({ obsName: 'x', type: 'map', data: 'Foxtrot' })); // no groupCode at all
    a.s.emit('obs_data', env('GRPB01', 'round_info', { roundNumber: 5, roundPhase: 'combat' }));
    // A marker for A's own match, sent after: once it shows, the foreign messages were handled.
    a.s.emit('obs_data', env('GRPA01', 'map', 'Canyon'));
    const fa = await feA.waitFor((f) => f.map === 'Fracture');
    // B's own observer still writes to B, and its frame is B's next one: anything of A's foreign
    // messages would have reached B's shard before it (sent before A's marker, which has shown).
    b.s.emit('obs_data', env('GRPB01', 'map', 'Pitt'));
    const fb = await feB.waitFor((f) => f.map === 'Pearl');
    expect(feB.frames.indexOf(fb)).toBe(bFramesBefore);
    for (const f of [...feA.frames, ...feB.frames]) {
      expect(f.map).not.toBe('Breeze');
      expect(f.roundNumber).toBe(0);
    }
    expect(fa.roundPhase).toBe('LOBBY');
    await expect.poll(() => svc.logs.some((l) => {
      const j = JSON.parse(l) as { reason?: string; groupCode?: string };
      return j.reason === 'group_mismatch' && j.groupCode === 'GRPA01';
    })).toBe(true);
  });

  it('obs_data before logon is ignored; many messages give one log line "unauthenticated"', async () => {
    const fe = await overlay(svc.broadcast, 'UNAU01');
    overlays.push(fe);
    const owner = await observer(JSON.stringify(packet('UNAU01')));
    await fe.waitFor(() => true);
    const stranger = connect(svc.ingest);
    await connected(stranger);
    const unauthenticated = () => svc.metric('ods_messages_dropped_total', { reason: 'unauthenticated' });
    const before = await unauthenticated();
    for (let i = 0; i < 6; i++) stranger.emit('obs_data', env('UNAU01', 'map', 'Jam'));
    stranger.emit('obs_data', { obsName: 'x', groupCode: 'UNAU01', type: 'map', data: 'Jam' });
    await expect.poll(async () => (await unauthenticated()) - before).toBe(7);
    const lines = svc.logs.map((l) => JSON.parse(l) as { reason?: string; socket?: string }).filter((j) => j.reason === 'unauthenticated' && j.socket === stranger.id);
    expect(lines).toHaveLength(1);
    // The owner's marker comes through; the stranger's map never did.
    owner.s.emit('obs_data', env('UNAU01', 'map', 'Juliett'));
    await fe.waitFor((f) => f.map === 'Sunset');
    expect(fe.frames.some((f) => f.map === 'Lotus')).toBe(false);
    expect(stranger.connected).toBe(true);
  });

  it('a refused logon leaves the socket unable to write (it is disconnected)', async () => {
    const r = await refused(JSON.stringify(packet('UNAU01')));
    expectRefusal(r, 'Game with Group Code UNAU01 exists and is still live.');
  });
});

describe('overlay logon mid-match', () => {
  it('gets the current snapshot at once, right after logon_success', async () => {
    const code = 'MIDM01';
    const fe0 = await overlay(svc.broadcast, code);
    overlays.push(fe0);
    const { s } = await observer(JSON.stringify(packet(code)));
    s.emit('obs_data', env(code, 'map', 'Port'));
    s.emit('obs_data', env(code, 'roster', { name: 'Lumen', tagline: 'NA1', startTeam: '0', agentInternal: 'Hunter', playerId: 'p-lumen', position: 0, locked: true, rank: 0 }));
    s.emit('obs_data', env(code, 'roster', { name: 'Quill', tagline: 'EU', startTeam: '1', agentInternal: 'Wushu', playerId: 'p-quill', position: 5, locked: false, rank: 0 }));
    await fe0.waitFor((f) => f.map === 'Icebox' && (f.teams as { players: unknown[] }[])[1].players.length === 1);
    // Nothing changes any more (the last roster is in the frame): no cycle frame can arrive for the late overlay.
    await expect.poll(async () => (await svc.frameNo(code)) === fe0.frames.length).toBe(true); // fe0 holds every frame published

    const late = connect(svc.broadcast);
    await connected(late);
    const events: [string, string, number][] = [];
    late.onAny((event: string, payload: string) => events.push([event, payload, Date.now()]));
    late.emit('logon', JSON.stringify({ groupCode: code }));
    await expect.poll(() => events.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    expect(events.map((e) => e[0])).toEqual(['logon_success', 'match_data']);
    expect(events[1][2] - events[0][2]).toBeLessThan(500);
    expect(typeof events[1][1]).toBe('string');
    const snap = JSON.parse(events[1][1]) as { map: string; roundPhase: string; teams: { teamName: string; players: { name: string; agentInternal: string; locked: boolean }[] }[] };
    expect(snap.map).toBe('Icebox');
    expect(snap.roundPhase).toBe('LOBBY');
    expect(snap.teams[0].players.map((p) => [p.name, p.agentInternal, p.locked])).toEqual([['Lumen', 'Hunter', true]]);
    expect(snap.teams[1].players.map((p) => [p.name, p.agentInternal, p.locked])).toEqual([['Quill', 'Wushu', false]]);
    // It is the same state the room saw last.
    expect(events[1][1]).toBe(fe0.raw[fe0.raw.length - 1]);
    overlays.push({ raw: [events[1][1]] });
    // The snapshot was sent to the joining socket once: the match's next frame (the marker) is the
    // next event it receives.
    s.emit('obs_data', env(code, 'map', 'Ascent'));
    await expect.poll(() => events.length).toBeGreaterThanOrEqual(3);
    expect(events.map((e) => e[0])).toEqual(['logon_success', 'match_data', 'match_data']);
    expect((JSON.parse(events[2][1]) as { map: string }).map).toBe('Ascent');
    overlays.push({ raw: [events[2][1]] });
  });

  it('an overlay logging on before any match gets logon_success and no frame', async () => {
    const fe = connect(svc.broadcast);
    await connected(fe);
    const events: string[] = [];
    fe.onAny((e: string) => events.push(e));
    fe.emit('logon', JSON.stringify({ groupCode: 'NOPE99' }));
    await expect.poll(() => events).toEqual(['logon_success']);
    // The marker: the match starts now, and its first frame is the first the overlay receives.
    const { s } = await observer(JSON.stringify(packet('NOPE99')));
    await expect.poll(() => events.length).toBeGreaterThanOrEqual(2);
    expect(events).toEqual(['logon_success', 'match_data']);
    s.close();
  });
});

describe('secrets', () => {
  it('no group secret, access key or player-camera secret in any frame or log line', async () => {
    expect(issuedSecrets.length).toBeGreaterThanOrEqual(6);
    const raws = overlays.flatMap((f) => f.raw);
    expect(raws.length).toBeGreaterThan(10);
    const secrets = [...issuedSecrets, AUTH_KEY, CAM_SECRET];
    for (const raw of raws) for (const s of secrets) expect(raw.includes(s), `frame contains ${s}`).toBe(false);
    expect(svc.logs.length).toBeGreaterThan(20);
    for (const line of svc.logs) for (const s of secrets) expect(line.includes(s), `log line contains a secret: ${line}`).toBe(false);
    // The identifier is public, the secret and endTime are not broadcast.
    const withCams = overlays.flatMap((f) => f.raw).map((r) => JSON.parse(r) as { tools: { playercamsInfo: Record<string, unknown> } });
    const cams = withCams[0].tools.playercamsInfo;
    expect(cams.identifier).toBe('PCLOG1');
    expect(cams).not.toHaveProperty('secret');
    expect(cams).not.toHaveProperty('endTime');
  });
});
