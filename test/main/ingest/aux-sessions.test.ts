// Auxiliary clients end to end (docs/client-contract.md 4.2–4.4, docs/match-rules.md 5): aux_logon acks (all typed
// aux_authenticate), the match id learned from the observer's match_start, aux_data of every type
// reaching every match of that game, data bound to the session's player, one live session per
// player, and the auxiliary flags cleared in a new frame when the client goes away. What an
// auxiliary session may not do at all: test/main/ingest/aux-trust.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { SERVICE_VERSION } from '../../../src/main/base/version.js';
import { auxClient, auxLogon as auxLogonPacket, closeAll, overlay, observer as observerClient, refusedLogon } from '../../helpers/clients.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { echoed } from '../../helpers/waits.js';

const AUTH_KEY = 'AUX-TEST-KEY';
const MATCH_ID = '0e7812f4-cb83-4e2c-8694-08d65ad27e58';

const ROSTER = [
  { name: 'Stella', tagline: 'A1', startTeam: '0', agentInternal: 'Rift', playerId: 'p-astra', position: 0, locked: true, rank: 0 },
  { name: 'Cam', tagline: 'C1', startTeam: '0', agentInternal: 'Gumshoe', playerId: 'p-cypher', position: 1, locked: true, rank: 0 },
  { name: 'Lumen', tagline: 'NA1', startTeam: '1', agentInternal: 'Hunter', playerId: 'p-sova', position: 5, locked: true, rank: 0 },
  { name: 'Quill', tagline: 'EU', startTeam: '1', agentInternal: 'Wushu', playerId: 'p-jett', position: 6, locked: true, rank: 0 },
];

type Player = {
  riotId: string; name: string; health: number; money: number; kills: number; iconNameSuffix: string;
  abilities: { grenade: unknown; ability1: unknown; ability2: unknown };
  auxiliaryAvailable: { health: boolean; abilities: boolean; scoreboard: boolean };
};
type Frame = Record<string, unknown> & { teams: { players: Player[] }[] };
const player = (f: Record<string, unknown>, id: string): Player | undefined => (f as Frame).teams.flatMap((t) => t.players).find((p) => p.riotId === id);

const obsEnv = (groupCode: string, type: string, data: unknown) => JSON.stringify({ obsName: 'Obs#1', groupCode, type, data });
const auxEnv = (playerId: string, type: string, data: unknown, matchId = MATCH_ID) => JSON.stringify({ playerId, matchId, type, data });
/** The auxiliary client's aux_logon (helpers/clients.ts), as the JSON string it sends. */
const auxLogon = (playerId: string, extra: Record<string, unknown> = {}) => JSON.stringify(auxLogonPacket({ name: 'Someone#1', matchId: MATCH_ID, playerId, ...extra }));

function row(p: (typeof ROSTER)[number], over: Record<string, unknown> = {}) {
  return {
    name: p.name, tagline: p.tagline, playerId: p.playerId, startTeam: Number(p.startTeam), agentInternal: p.agentInternal, isAlive: true,
    initialArmor: 2, scoreboardWeaponInternal: 'TX_Hud_Rifles_Volcano', currUltPoints: 3, maxUltPoints: 8, hasSpike: false,
    money: 800, kills: 0, deaths: 0, assists: 0, ...over,
  };
}

let svc: TestService;
let obs1: Socket;
let obs2: Socket;
let fe1: Awaited<ReturnType<typeof overlay>>;
let fe2: Awaited<ReturnType<typeof overlay>>;

async function observer(groupCode: string): Promise<Socket> {
  const { socket: s, ack } = await observerClient(svc.ingest, {
    obsName: 'Obs#1', key: AUTH_KEY, groupCode,
    leftTeam: { name: 'Left', tricode: 'LFT', url: '', attackStart: true }, rightTeam: { name: 'Right', tricode: 'RGT', url: '', attackStart: false },
  });
  expect(ack.value).toBe(true);
  for (const r of ROSTER) s.emit('obs_data', obsEnv(groupCode, 'roster', r));
  return s;
}

/** An auxiliary logon on a fresh socket (a JSON string as given, or a plain object); resolves with the parsed ack (and the socket). */
async function aux(payload: string | Record<string, unknown>): Promise<{ s: Socket; ack: { type: string; value: boolean; reason: string }; raw: string }> {
  const { socket: s, ack, raw } = await auxClient(svc.ingest, payload, { asObject: true });
  return { s, ack, raw };
}

async function refusedAux(payload: unknown, reason: string): Promise<void> {
  const { acks, order, reason: gone } = await refusedLogon(svc.ingest, 'aux_logon', payload);
  expect(gone).toBe('io server disconnect');
  expect(order).toEqual(['ack', 'disconnect']);
  expect(typeof acks[0]).toBe('string');
  expect(JSON.parse(acks[0])).toEqual({ type: 'aux_authenticate', value: false, reason });
}

type Fe = Awaited<ReturnType<typeof overlay>>;
/** The first frame from now on that satisfies pred (frames already received do not count). */
function next(fe: Fe, pred: (f: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const start = fe.frames.length;
  return fe.waitFor((f) => fe.frames.indexOf(f) >= start && pred(f));
}

const dropLogged = (reason: string, type?: string) => svc.logs.some((l) => {
  const j = JSON.parse(l) as { reason?: string; type?: string };
  return j.reason === reason && (type === undefined || j.type === type);
});

beforeAll(async () => {
  svc = await startTestService({ AUTH_KEY });
  fe1 = await overlay(svc.broadcast, 'AUXG01');
  fe2 = await overlay(svc.broadcast, 'AUXG02');
  obs1 = await observer('AUXG01');
  obs2 = await observer('AUXG02');
  await fe1.waitFor((f) => (f as Frame).teams[1].players.length === 2 && (f as Frame).teams[0].players.length === 2);
  await fe2.waitFor((f) => (f as Frame).teams[1].players.length === 2 && (f as Frame).teams[0].players.length === 2);
});
afterAll(async () => {
  closeAll();
  await svc?.close();
});

describe('aux_logon refusals: type aux_authenticate, then disconnect', () => {
  it.each([
    ['non-JSON', '{oops'],
    ['a number', 7],
    ['the observer type', JSON.stringify({ type: 'authenticate', clientVersion: '0.3.3', matchId: MATCH_ID, playerId: 'p-astra' })],
    ['no type', JSON.stringify({ clientVersion: '0.3.3', matchId: MATCH_ID, playerId: 'p-astra' })],
  ])('%s → "Invalid packet."', async (_n, payload) => {
    await refusedAux(payload, 'Invalid packet.');
  });

  it.each([['0.2.46'], ['0.3.4-rc.1'], ['1.0.0']])('version %s → not compatible', async (v) => {
    await refusedAux(auxLogon('p-astra', { clientVersion: v }), `Client version ${v} is not compatible with server version ${SERVICE_VERSION}.`);
  });
  it('no version → "undefined"', async () => {
    await refusedAux(auxLogon('p-astra', { clientVersion: undefined }), `Client version undefined is not compatible with server version ${SERVICE_VERSION}.`);
  });

  it('before the observer sent match_start, the game\'s match id is not found', async () => {
    await refusedAux(auxLogon('p-astra'), `Game with Match ID ${MATCH_ID} not found.`);
  });
  it('an empty matchId is refused even though matches without match_start exist', async () => {
    expect(await svc.metric('ods_live_matches')).toBe(2);
    await refusedAux(auxLogon('p-astra', { matchId: '' }), 'Game with Match ID  not found.');
  });
  it('a missing matchId is refused like an empty one', async () => {
    await refusedAux(auxLogon('p-astra', { matchId: undefined }), 'Game with Match ID  not found.');
  });
});

describe('auxiliary sessions after match_start', () => {
  let astra: Socket;
  let cypher: Socket;

  it('match_start sets the match id; aux_logon then succeeds with an empty reason', async () => {
    obs1.emit('obs_data', obsEnv('AUXG01', 'match_start', MATCH_ID));
    obs2.emit('obs_data', obsEnv('AUXG02', 'match_start', MATCH_ID));
    await fe1.waitFor((f) => f.matchId === MATCH_ID);
    await fe2.waitFor((f) => f.matchId === MATCH_ID);
    await refusedAux(auxLogon('p-astra', { matchId: 'another-match' }), 'Game with Match ID another-match not found.');
    const a = await aux(auxLogon('p-astra'));
    expect(typeof a.raw).toBe('string');
    expect(a.ack).toEqual({ type: 'aux_authenticate', value: true, reason: '' });
    astra = a.s;
    const c = await aux(JSON.parse(auxLogon('p-cypher'))); // a plain object works too
    expect(c.ack).toEqual({ type: 'aux_authenticate', value: true, reason: '' });
    cypher = c.s;
  });

  it('aux_health sets health and auxiliaryAvailable.health in every match of that game', async () => {
    expect(player(fe1.frames.at(-1)!, 'p-astra')!.auxiliaryAvailable).toEqual({ health: false, abilities: false, scoreboard: false });
    astra.emit('aux_data', auxEnv('p-astra', 'aux_health', 57));
    for (const fe of [fe1, fe2]) {
      const f = await fe.waitFor((x) => player(x, 'p-astra')?.health === 57);
      expect(player(f, 'p-astra')!.auxiliaryAvailable).toEqual({ health: true, abilities: false, scoreboard: false });
    }
  });

  it('aux_abilities sets the charges and auxiliaryAvailable.abilities', async () => {
    astra.emit('aux_data', auxEnv('p-astra', 'aux_abilities', { grenade: 1, ability_1: 2, ability_2: 0 }));
    const f = await fe1.waitFor((x) => player(x, 'p-astra')?.auxiliaryAvailable.abilities === true);
    expect(player(f, 'p-astra')!.abilities).toEqual({ grenade: 1, ability1: 2, ability2: 0 });
    await fe2.waitFor((x) => player(x, 'p-astra')?.abilities.ability1 === 2);
  });

  it('aux_astra_targeting and aux_cypher_cam set the icon suffix of their own player', async () => {
    astra.emit('aux_data', auxEnv('p-astra', 'aux_astra_targeting', true));
    cypher.emit('aux_data', auxEnv('p-cypher', 'aux_cypher_cam', true));
    const f = await fe1.waitFor((x) => player(x, 'p-astra')?.iconNameSuffix === 'Targeting' && player(x, 'p-cypher')?.iconNameSuffix === 'Cam');
    expect(player(f, 'p-sova')!.iconNameSuffix).toBe('');
    const off = next(fe1, (x) => player(x, 'p-cypher')?.iconNameSuffix === '');
    cypher.emit('aux_data', auxEnv('p-cypher', 'aux_cypher_cam', false));
    expect(player(await off, 'p-astra')!.iconNameSuffix).toBe('Targeting');
  });

  it('aux_scoreboard (own row) and aux_scoreboard_team (JSON string of teammate rows) update the players', async () => {
    astra.emit('aux_data', auxEnv('p-astra', 'aux_scoreboard', row(ROSTER[0], { money: 3900, kills: 4 })));
    const team = JSON.stringify([{ ...row(ROSTER[1], { money: 2100, kills: 2 }), name: undefined, tagline: undefined, startTeam: undefined }]);
    astra.emit('aux_data', auxEnv('p-astra', 'aux_scoreboard_team', team));
    const f = await fe1.waitFor((x) => player(x, 'p-astra')?.money === 3900 && player(x, 'p-cypher')?.money === 2100);
    expect(player(f, 'p-astra')!.kills).toBe(4);
    expect(player(f, 'p-astra')!.auxiliaryAvailable.scoreboard).toBe(true);
    expect(player(f, 'p-cypher')!.kills).toBe(2);
    expect(player(f, 'p-cypher')!.auxiliaryAvailable.scoreboard).toBe(true);
    // The other team is untouched.
    expect(player(f, 'p-sova')!.money).toBe(0);
    await fe2.waitFor((x) => player(x, 'p-cypher')?.money === 2100);
  });

  it('per-player data naming another player is dropped (player_mismatch)', async () => {
    astra.emit('aux_data', auxEnv('p-sova', 'aux_health', 12));
    astra.emit('aux_data', auxEnv('p-sova', 'aux_abilities', { grenade: 9, ability_1: 9, ability_2: 9 }));
    astra.emit('aux_data', auxEnv('p-cypher', 'aux_cypher_cam', true));
    astra.emit('aux_data', auxEnv('p-astra', 'aux_health', 44)); // marker
    const f = await fe1.waitFor((x) => player(x, 'p-astra')?.health === 44);
    expect(player(f, 'p-sova')!.health).toBe(100);
    expect(player(f, 'p-sova')!.auxiliaryAvailable).toEqual({ health: false, abilities: false, scoreboard: false });
    expect(player(f, 'p-sova')!.abilities).toEqual({ grenade: 0, ability1: 0, ability2: 0 });
    expect(player(f, 'p-cypher')!.iconNameSuffix).toBe('');
    expect(fe1.frames.some((x) => player(x, 'p-sova')?.health === 12)).toBe(false);
    await expect.poll(() => dropLogged('player_mismatch', 'aux_health')).toBe(true);
  });

  it('an envelope naming another match id is dropped (match_mismatch)', async () => {
    astra.emit('aux_data', auxEnv('p-astra', 'aux_health', 5, 'other-match'));
    astra.emit('aux_data', auxEnv('p-astra', 'aux_health', 45));
    await fe1.waitFor((x) => player(x, 'p-astra')?.health === 45);
    expect(fe1.frames.some((x) => player(x, 'p-astra')?.health === 5)).toBe(false);
    await expect.poll(() => dropLogged('match_mismatch')).toBe(true);
  });

  it('roles are kept apart: obs_data on an auxiliary session and aux_data on an observer session are dropped (wrong_role)', async () => {
    const wrongRole = () => svc.metric('ods_messages_dropped_total', { reason: 'wrong_role' });
    const before = await wrongRole();
    astra.emit('obs_data', obsEnv('AUXG01', 'map', 'Ascent'));
    obs1.emit('aux_data', auxEnv('p-astra', 'aux_health', 1));
    await expect.poll(async () => (await wrongRole()) - before).toBe(2);
    astra.emit('aux_data', auxEnv('p-astra', 'aux_health', 46));
    await fe1.waitFor((x) => player(x, 'p-astra')?.health === 46);
    expect(fe1.frames.some((x) => x.map === 'Ascent' || player(x, 'p-astra')?.health === 1)).toBe(false);
    expect(dropLogged('wrong_role')).toBe(true);
  });

  it('a second aux_logon or an obs_logon on an auxiliary socket gets no ack', async () => {
    const acks: string[] = [];
    astra.on('aux_logon_ack', (a: string) => acks.push(a));
    astra.on('obs_logon_ack', (a: string) => acks.push(a));
    astra.emit('aux_logon', auxLogon('p-sova'));
    astra.emit('obs_logon', JSON.stringify({ type: 'authenticate', clientVersion: '0.3.3', key: AUTH_KEY, groupCode: 'AUXG09', leftTeam: { name: 'a', tricode: 'a', url: '' }, rightTeam: { name: 'b', tricode: 'b', url: '' } }));
    // Both are dropped at once (check 0: no ack, nothing else done); the echo after them proves it ran.
    await echoed(astra);
    expect(acks).toEqual([]);
    expect(astra.connected).toBe(true);
    expect(await svc.admin.has('AUXG09')).toBe(false);
  });

  it('a second live session for the same match and player is refused', async () => {
    const { acks, order, reason } = await refusedLogon(svc.ingest, 'aux_logon', auxLogon('p-astra'));
    expect(order).toEqual(['ack', 'disconnect']);
    const parsed = JSON.parse(acks[0]) as { type: string; value: boolean; reason: string };
    expect(parsed.type).toBe('aux_authenticate');
    expect(parsed.value).toBe(false);
    expect(reason).toBe('io server disconnect');
    // The first session is unaffected.
    astra.emit('aux_data', auxEnv('p-astra', 'aux_health', 47));
    await fe1.waitFor((x) => player(x, 'p-astra')?.health === 47);
  });

  it('an auxiliary disconnect clears that player\'s flags in a new frame, in every match of the game', async () => {
    // Settled: the last change (health 47) shows in both matches, and both overlays hold every frame published.
    await fe2.waitFor((x) => player(x, 'p-astra')?.health === 47);
    await expect.poll(async () => (await svc.frameNo('AUXG01')) === fe1.frames.length && (await svc.frameNo('AUXG02')) === fe2.frames.length).toBe(true);
    const n1 = fe1.frames.length;
    const n2 = fe2.frames.length;
    const before = player(fe1.frames.at(-1)!, 'p-astra')!;
    expect(before.auxiliaryAvailable).toEqual({ health: true, abilities: true, scoreboard: true });
    const f1 = next(fe1, (x) => player(x, 'p-astra')?.auxiliaryAvailable.health === false);
    const f2 = next(fe2, (x) => player(x, 'p-astra')?.auxiliaryAvailable.health === false);
    astra.close();
    const f = await f1;
    expect(fe1.frames.length).toBe(n1 + 1);
    expect(player(f, 'p-astra')!.auxiliaryAvailable).toEqual({ health: false, abilities: false, scoreboard: false });
    expect(player(f, 'p-astra')!.health).toBe(47); // values stay, only the flags drop
    // The cypher client is still there: its flags are unchanged.
    expect(player(f, 'p-cypher')!.auxiliaryAvailable.scoreboard).toBe(true);
    await f2;
    // The marker: the cypher client's next change reaches both matches (same player, same game),
    // and its frames are the next ones: no other frame came after the disconnect's.
    cypher.emit('aux_data', auxEnv('p-cypher', 'aux_health', 33));
    const m1 = await fe1.waitFor((x) => player(x, 'p-cypher')?.health === 33);
    const m2 = await fe2.waitFor((x) => player(x, 'p-cypher')?.health === 33);
    expect(fe1.frames.indexOf(m1)).toBe(n1 + 1);
    expect(fe2.frames.indexOf(m2)).toBe(n2 + 1);
  });

  it('after its disconnect, the player may log on again', async () => {
    const again = await aux(auxLogon('p-astra'));
    expect(again.ack).toEqual({ type: 'aux_authenticate', value: true, reason: '' });
    again.s.emit('aux_data', auxEnv('p-astra', 'aux_health', 99));
    const f = await fe1.waitFor((x) => player(x, 'p-astra')?.health === 99);
    expect(player(f, 'p-astra')!.auxiliaryAvailable.health).toBe(true);
    const cleared = next(fe1, (x) => player(x, 'p-astra')?.auxiliaryAvailable.health === false);
    again.s.close();
    expect(player(await cleared, 'p-astra')!.health).toBe(99);
  });

  it('a logon without a player id is refused: every auxiliary session is a roster player\'s', async () => {
    await refusedAux(auxLogon(''), `Player  is not on the roster of the game with Match ID ${MATCH_ID}.`);
  });

  it('an auxiliary session applies its own scoreboard row only; another player\'s row is refused (player_mismatch)', async () => {
    const jett = await aux(auxLogon('p-jett'));
    expect(jett.ack.value).toBe(true);
    jett.s.emit('aux_data', auxEnv('p-jett', 'aux_scoreboard', row(ROSTER[3], { money: 1234 })));
    const f = await fe1.waitFor((x) => player(x, 'p-jett')?.money === 1234);
    expect(player(f, 'p-jett')!.auxiliaryAvailable.scoreboard).toBe(true);
    await fe2.waitFor((x) => player(x, 'p-jett')?.money === 1234);
    // Another player's row (aux-observer mode runs on a spectator, who cannot log on), under its own or the other's envelope id.
    jett.s.emit('aux_data', auxEnv('p-jett', 'aux_scoreboard', row(ROSTER[2], { money: 4100 })));
    jett.s.emit('aux_data', auxEnv('p-sova', 'aux_scoreboard', row(ROSTER[2], { money: 5 })));
    jett.s.emit('aux_data', auxEnv('p-jett', 'aux_health', 33));
    await fe1.waitFor((x) => player(x, 'p-jett')?.health === 33);
    expect(fe1.frames.some((x) => player(x, 'p-sova')?.money === 5 || player(x, 'p-sova')?.money === 4100)).toBe(false);
    expect(player(fe1.frames.at(-1)!, 'p-sova')!.auxiliaryAvailable.scoreboard).toBe(false);
    await expect.poll(() => dropLogged('player_mismatch', 'aux_scoreboard')).toBe(true);
    // Its disconnect clears p-jett's flags only.
    const cleared = next(fe1, (x) => player(x, 'p-jett')?.auxiliaryAvailable.health === false);
    jett.s.close();
    const g = await cleared;
    expect(player(g, 'p-jett')!.auxiliaryAvailable).toEqual({ health: false, abilities: false, scoreboard: false });
  });
});
