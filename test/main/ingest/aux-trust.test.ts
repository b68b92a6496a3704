// What an auxiliary session may change (docs/match-rules.md 5, docs/client-contract.md 4.2–4.4, docs/reliability.md
// "Auxiliary trust"). An auxiliary logon needs no key, and the match id and player ids are public
// in every frame, so:
// - aux_data applies only the six auxiliary types; every observer type (score, round_info,
//   match_start, …) is dropped `not_aux_type` whatever the envelope claims (groupCode, obsName,
//   another playerId), counted in the shard drops, the metrics and the dashboard;
// - the envelope's playerId must be the session's player (`player_mismatch`);
// - an auxiliary logon must name a player on the roster of the game (ack reason otherwise);
// - an observer's recorded aux_ records (replays) reach its own match only, whatever they name.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { auxClient, auxLogon as auxLogonPacket, closeAll, overlay, observer as observerClient, refusedLogon } from '../../helpers/clients.js';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';

const AUTH_KEY = 'AUX-TRUST-KEY';
const ADMIN = 'ops-token-aux-trust-7c1e';
const CODE = 'TRUST1';
const OTHER = 'TRUST2';
const MATCH_ID = '5b0c9e2a-7d41-4f6e-9a3b-1c2d3e4f5a6b';
const OTHER_MATCH_ID = '9f8e7d6c-5b4a-4321-8fed-cba987654321';

const ROSTER = [
  { name: 'Stella', tagline: 'A1', startTeam: '0', agentInternal: 'Rift', playerId: 'p-astra', position: 0, locked: true, rank: 0 },
  { name: 'Cam', tagline: 'C1', startTeam: '0', agentInternal: 'Gumshoe', playerId: 'p-cypher', position: 1, locked: true, rank: 0 },
  { name: 'Lumen', tagline: 'NA1', startTeam: '1', agentInternal: 'Hunter', playerId: 'p-sova', position: 5, locked: true, rank: 0 },
  { name: 'Quill', tagline: 'EU', startTeam: '1', agentInternal: 'Wushu', playerId: 'p-jett', position: 6, locked: true, rank: 0 },
];

type Player = { riotId: string; health: number; money: number; kills: number; iconNameSuffix: string; auxiliaryAvailable: { health: boolean } };
type Frame = Record<string, unknown> & { teams: { players: Player[]; roundsWon: number }[] };
type Fe = Awaited<ReturnType<typeof overlay>>;
const player = (f: Record<string, unknown>, id: string): Player | undefined => (f as Frame).teams.flatMap((t) => t.players).find((p) => p.riotId === id);

const obsEnv = (groupCode: string, type: string, data: unknown) => JSON.stringify({ obsName: 'Obs#1', groupCode, type, data });
/** The auxiliary client's aux_logon (helpers/clients.ts), as the JSON string it sends. */
const auxLogon = (playerId: unknown, matchId = MATCH_ID) => JSON.stringify(auxLogonPacket({ name: 'Someone#1', matchId, playerId }));

function row(p: (typeof ROSTER)[number], over: Record<string, unknown> = {}) {
  return {
    name: p.name, tagline: p.tagline, playerId: p.playerId, startTeam: Number(p.startTeam), agentInternal: p.agentInternal, isAlive: true,
    initialArmor: 2, scoreboardWeaponInternal: 'TX_Hud_Rifles_Volcano', currUltPoints: 3, maxUltPoints: 8, hasSpike: false,
    money: 800, kills: 0, deaths: 0, assists: 0, ...over,
  };
}

/** Every observer type (docs/client-contract.md 3.2) with data that changes the match if it were applied, and two unknown types. */
const OBSERVER_ONLY: [string, unknown][] = [
  ['scoreboard', row(ROSTER[2], { money: 9000, kills: 7 })],
  ['killfeed', { attacker: 'Stella', victim: 'Lumen', weaponKillfeedInternal: 'TX_Hud_Volcano', headshotKill: true, assists: [], isTeamkill: false }],
  ['roster', { name: 'Intruder', tagline: 'X', startTeam: '0', agentInternal: 'Wushu', playerId: 'p-intruder', position: 3, locked: true, rank: 0 }],
  ['observing', 'Lumen #NA1'],
  ['match_start', 'forged-match-id'],
  ['map', 'Ascent'],
  ['game_mode', 'swift'],
  ['round_info', { roundNumber: 5, roundPhase: 'combat' }],
  ['score', { team_0: 12, team_1: 0 }],
  ['spike_planted', true],
  ['spike_detonated', true],
  ['spike_defused', true],
  ['tech_pause', true],
  ['left_timeout', true],
  ['right_timeout', true],
  ['switch_kda_credits', true],
  ['toast', { title: 'Forged', message: '12-0', duration: 5000, selectedTeam: 'none', eventLogoEnabled: true }],
  ['swap_left_right', true],
  ['swap_attacker_defender', true],
  ['team_is_attacker', true],
  ['aux_not_a_rule', { x: 1 }],
  ['not_a_type', { x: 1 }],
];

let svc: TestService;
let obs: Socket;
let fe: Fe;

async function observer(groupCode: string, matchId: string, roster: typeof ROSTER): Promise<Socket> {
  const { socket: s, ack } = await observerClient(svc.ingest, {
    obsName: 'Obs#1', key: AUTH_KEY, groupCode,
    leftTeam: { name: 'Left', tricode: 'LFT', url: '', attackStart: true }, rightTeam: { name: 'Right', tricode: 'RGT', url: '', attackStart: false },
  });
  expect(ack.value).toBe(true);
  for (const r of roster) s.emit('obs_data', obsEnv(groupCode, 'roster', r));
  s.emit('obs_data', obsEnv(groupCode, 'map', 'Port'));
  s.emit('obs_data', obsEnv(groupCode, 'match_start', matchId));
  s.emit('obs_data', obsEnv(groupCode, 'round_info', { roundNumber: 1, roundPhase: 'shopping' }));
  return s;
}

/** An auxiliary logon on a fresh socket: the parsed ack and the socket. */
async function aux(payload: string): Promise<{ s: Socket; ack: { type: string; value: boolean; reason: string } }> {
  const { socket: s, ack } = await auxClient(svc.ingest, payload);
  return { s, ack };
}

async function refusedAux(payload: string, reason: string): Promise<void> {
  const { acks, reason: gone } = await refusedLogon(svc.ingest, 'aux_logon', payload);
  expect(acks.map((a) => JSON.parse(a) as unknown)).toEqual([{ type: 'aux_authenticate', value: false, reason }]);
  expect(gone).toBe('io server disconnect');
}

/** The frame without serverTime and without the auxiliary fields of `playerId` (its own data). */
function withoutOwnAux(f: Record<string, unknown>, playerId: string): unknown {
  const copy = JSON.parse(JSON.stringify(f)) as Frame;
  delete copy.serverTime;
  for (const t of copy.teams) {
    for (const p of t.players as unknown as Record<string, unknown>[]) {
      if (p.riotId !== playerId) continue;
      delete p.health;
      delete p.auxiliaryAvailable;
      delete p.abilities;
      delete p.iconNameSuffix;
    }
  }
  return copy;
}

/** The shards' drops by reason (the dashboard's totals, GET /admin/matches). */
const shardDrops = async (reason: string) => (await svc.admin.snapshot()).totals.dropped.shards[reason] ?? 0;
const dropLogged = (reason: string, type: string) => svc.logs.some((l) => {
  const j = JSON.parse(l) as { reason?: string; type?: string; msg?: string };
  return j.msg === 'message dropped' && j.reason === reason && j.type === type;
});

const replayDir = tempDir('ods-aux-trust-replays-');
/** The text of the replay file recorded for `code` (RECORD_REPLAYS), '' until it exists. */
const recorded = (code: string): string => {
  const file = fs.readdirSync(replayDir).find((f) => f.includes(code));
  return file ? fs.readFileSync(path.join(replayDir, file), 'utf8') : '';
};

beforeAll(async () => {
  svc = await startTestService({ AUTH_KEY, ADMIN_TOKEN: `ops:${ADMIN}`, RECORD_REPLAYS: 'true', REPLAY_DIR: replayDir });
  fe = await overlay(svc.broadcast, CODE);
  obs = await observer(CODE, MATCH_ID, ROSTER);
  await fe.waitFor((f) => f.matchId === MATCH_ID && f.roundPhase === 'shopping' && (f as Frame).teams.every((t) => t.players.length === 2));
});
afterAll(async () => {
  closeAll();
  await svc?.close();
});

describe('aux_data applies auxiliary types only', () => {
  // A real player of the match, and a stranger who logged on as a player whose own client is not running
  // (both are indistinguishable to the service: neither carries a key).
  it.each([
    ['the real player p-astra', 'p-astra', 'p-sova'],
    ['a stranger logged on as p-jett', 'p-jett', 'p-cypher'],
  ])('%s sending every observer type changes nothing but its own auxiliary fields', async (_who, self, other) => {
    const a = await aux(auxLogon(self));
    expect(a.ack).toEqual({ type: 'aux_authenticate', value: true, reason: '' });
    const marker = (health: number) => JSON.stringify({ playerId: self, matchId: MATCH_ID, type: 'aux_health', data: health });

    a.s.emit('aux_data', marker(61));
    const before = await fe.waitFor((f) => player(f, self)?.health === 61);
    const from = fe.frames.indexOf(before);
    const dropsBefore = await shardDrops('not_aux_type');

    // Every observer type, with the match's group code and obsName in the envelope; the playerId
    // alternates between the sender's own and another player's.
    OBSERVER_ONLY.forEach(([type, data], i) => {
      a.s.emit('aux_data', JSON.stringify({ obsName: 'Obs#1', groupCode: CODE, matchId: MATCH_ID, playerId: i % 2 === 0 ? self : other, type, data }));
    });
    // The sender's own auxiliary data still applies, after all of them (same socket, same order).
    a.s.emit('aux_data', marker(62));
    const after = await fe.waitFor((f) => player(f, self)?.health === 62, 20_000).catch(() => undefined);

    // No frame in between showed any change but the sender's own auxiliary fields (checked first:
    // when the marker never came, these frames show why).
    const expected = withoutOwnAux(before, self);
    for (const f of fe.frames.slice(from, after ? fe.frames.indexOf(after) + 1 : undefined)) expect(withoutOwnAux(f, self)).toEqual(expected);
    if (!after) throw new Error('the sender\'s own aux_health after the observer types never showed');
    expect(player(after, self)!.auxiliaryAvailable.health).toBe(true);
    expect(after.matchId).toBe(MATCH_ID);
    expect((after as Frame).teams.map((t) => t.roundsWon)).toEqual([0, 0]);

    // Each is dropped once, counted (shard drops, metrics, dashboard) and logged.
    await expect.poll(async () => (await shardDrops('not_aux_type')) - dropsBefore, { timeout: 20_000 }).toBe(OBSERVER_ONLY.length);
    for (const type of ['score', 'match_start', 'swap_left_right', 'roster']) expect(dropLogged('not_aux_type', type)).toBe(true);
    a.s.close();
  });

  it('not_aux_type shows in ods_messages_dropped_total and on the dashboard', async () => {
    const metric = () => svc.metric('ods_messages_dropped_total', { reason: 'not_aux_type' });
    await expect.poll(metric, { timeout: 20_000 }).toBe(2 * OBSERVER_ONLY.length);
    const dashboard = async () => {
      const res = await fetch(`${svc.rest}/admin/matches`, { headers: { Authorization: `Bearer ${ADMIN}` } });
      return ((await res.json()) as { totals: { dropped: { shards: Record<string, number> } } }).totals.dropped.shards.not_aux_type;
    };
    await expect.poll(dashboard, { timeout: 20_000 }).toBe(2 * OBSERVER_ONLY.length);
  });

  it('made-up types are counted each time but logged a bounded number of times, cut short', async () => {
    const a = await aux(auxLogon('p-cypher'));
    expect(a.ack.value).toBe(true);
    const dropsBefore = await shardDrops('not_aux_type');
    const env = (type: string) => JSON.stringify({ playerId: 'p-cypher', matchId: MATCH_ID, type, data: 1 });
    a.s.emit('aux_data', env('x'.repeat(5000)));
    for (let i = 0; i < 200; i++) a.s.emit('aux_data', env(`forged_${i}`));
    a.s.emit('aux_data', env('aux_health').replace('"data":1', '"data":64')); // marker
    await fe.waitFor((f) => player(f, 'p-cypher')?.health === 64, 20_000);
    await expect.poll(async () => (await shardDrops('not_aux_type')) - dropsBefore, { timeout: 20_000 }).toBe(201);
    const lines = svc.logs.map((l) => JSON.parse(l) as { msg?: string; groupCode?: string; type?: string }).filter((j) => j.msg === 'message dropped' && j.groupCode === CODE);
    expect(lines.length).toBeLessThanOrEqual(64 + 16); // 64 (reason, type) pairs per match, then at most once per reason
    expect(lines.filter((j) => j.type?.startsWith('forged_')).length).toBeLessThan(64);
    const long = lines.find((j) => j.type?.startsWith('xxx'));
    expect(long?.type?.length).toBeLessThanOrEqual(65);
    a.s.close();
  });

  it('the envelope playerId must be the session\'s player for every auxiliary type (player_mismatch)', async () => {
    const a = await aux(auxLogon('p-astra'));
    expect(a.ack.value).toBe(true);
    const mismatchesBefore = await shardDrops('player_mismatch');
    const env = (playerId: string, type: string, data: unknown) => JSON.stringify({ playerId, matchId: MATCH_ID, type, data });
    // The other team's rows under a right-team player's name, and per-player data of another player.
    a.s.emit('aux_data', env('p-sova', 'aux_scoreboard_team', JSON.stringify([{ ...row(ROSTER[3], { money: 7777 }), name: undefined, tagline: undefined, startTeam: undefined }])));
    a.s.emit('aux_data', env('p-sova', 'aux_health', 3));
    // Another player's full scoreboard row under the session's own name (aux-observer mode is a spectator's, who cannot log on).
    a.s.emit('aux_data', env('p-astra', 'aux_scoreboard', row(ROSTER[3], { money: 7778 })));
    a.s.emit('aux_data', env('p-astra', 'aux_health', 63)); // marker
    const f = await fe.waitFor((x) => player(x, 'p-astra')?.health === 63, 20_000);
    expect(player(f, 'p-jett')!.money).not.toBe(7777);
    expect(fe.frames.some((x) => player(x, 'p-jett')?.money === 7777 || player(x, 'p-jett')?.money === 7778 || player(x, 'p-sova')?.health === 3)).toBe(false);
    await expect.poll(() => dropLogged('player_mismatch', 'aux_scoreboard_team'), { timeout: 20_000 }).toBe(true);
    // Three refusals (team rows, health, the other player's row); the drop log is capped per match, the counter is not.
    await expect.poll(async () => (await shardDrops('player_mismatch')) - mismatchesBefore, { timeout: 20_000 }).toBe(3);
    // Refused before recording: a replay of the file (observer privileges) cannot apply them.
    await expect.poll(() => recorded(CODE).includes('"type":"aux_health","data":63')).toBe(true);
    // As money values and as data, not as digits: a record's timestamp may hold 7777 or 7778.
    expect(recorded(CODE)).not.toMatch(/\\?"money\\?":777[78]\b|"data":3[,}]/);
    a.s.close();
  });
});

describe('an auxiliary logon names a player on the roster', () => {
  it('a player id the game does not know is refused', async () => {
    await refusedAux(auxLogon('p-stranger'), `Player p-stranger is not on the roster of the game with Match ID ${MATCH_ID}.`);
  });

  it('an empty or missing player id is refused', async () => {
    await refusedAux(auxLogon(''), `Player  is not on the roster of the game with Match ID ${MATCH_ID}.`);
    await refusedAux(auxLogon(undefined), `Player  is not on the roster of the game with Match ID ${MATCH_ID}.`);
  });

  it('a player who joins the roster later may log on once the match shows it', async () => {
    await refusedAux(auxLogon('p-late'), `Player p-late is not on the roster of the game with Match ID ${MATCH_ID}.`);
    obs.emit('obs_data', obsEnv(CODE, 'roster', { name: 'Late', tagline: 'L', startTeam: '1', agentInternal: 'Pine', playerId: 'p-late', position: 7, locked: true, rank: 0 }));
    await fe.waitFor((f) => player(f, 'p-late') !== undefined);
    const a = await aux(auxLogon('p-late'));
    expect(a.ack).toEqual({ type: 'aux_authenticate', value: true, reason: '' });
    a.s.emit('aux_data', JSON.stringify({ playerId: 'p-late', matchId: MATCH_ID, type: 'aux_health', data: 41 }));
    await fe.waitFor((f) => player(f, 'p-late')?.health === 41);
    a.s.close();
  });
});

describe('an observer\'s recorded aux_ records (replays)', () => {
  it('apply to the observer\'s own match only, whatever group code, match id or player they name', async () => {
    const fe2 = await overlay(svc.broadcast, OTHER);
    // Another game whose roster happens to hold the same player id.
    const obs2 = await observer(OTHER, OTHER_MATCH_ID, [ROSTER[0]]);
    await fe2.waitFor((f) => f.matchId === OTHER_MATCH_ID && player(f, 'p-astra') !== undefined);
    const baseline = player(fe.frames.at(-1)!, 'p-astra')!.health;
    obs2.emit('obs_data', JSON.stringify({ obsName: 'Obs#1', groupCode: CODE, matchId: MATCH_ID, playerId: 'p-astra', type: 'aux_health', data: 13 }));
    await fe2.waitFor((f) => player(f, 'p-astra')?.health === 13);
    // Applied to TRUST2 (above); TRUST1 gets a marker from its own observer and never showed 13.
    const kda = fe.frames.at(-1)!.showAliveKDA;
    obs.emit('obs_data', obsEnv(CODE, 'switch_kda_credits', true));
    const f = await fe.waitFor((x) => x.showAliveKDA === !kda);
    expect(player(f, 'p-astra')!.health).toBe(baseline);
    expect(fe.frames.some((x) => player(x, 'p-astra')?.health === 13)).toBe(false);
    obs2.close();
  });
});

describe('the roster after a restart from STATE_DIR', () => {
  it('is reported again by the restored match: a roster player logs on, a stranger is refused', async () => {
    const env = { AUTH_KEY, STATE_DIR: tempDir('ods-aux-trust-'), SNAPSHOT_INTERVAL_MS: '200' };
    const main = svc; // the helpers above talk to `svc`
    const started: TestService[] = [];
    try {
      svc = await startTestService(env);
      started.push(svc);
      const feA = await overlay(svc.broadcast, 'TRUST3');
      const o = await observer('TRUST3', OTHER_MATCH_ID, ROSTER);
      await feA.waitFor((f) => f.matchId === OTHER_MATCH_ID && (f as Frame).teams.every((t) => t.players.length === 2));
      o.close();
      await svc.shutdown();

      svc = await startTestService(env);
      started.push(svc);
      const feB = await overlay(svc.broadcast, 'TRUST3');
      await feB.waitFor((f) => f.matchId === OTHER_MATCH_ID);
      await refusedAux(auxLogon('p-stranger', OTHER_MATCH_ID), `Player p-stranger is not on the roster of the game with Match ID ${OTHER_MATCH_ID}.`);
      const a = await aux(auxLogon('p-sova', OTHER_MATCH_ID));
      expect(a.ack).toEqual({ type: 'aux_authenticate', value: true, reason: '' });
      a.s.emit('aux_data', JSON.stringify({ playerId: 'p-sova', matchId: OTHER_MATCH_ID, type: 'aux_health', data: 27 }));
      await feB.waitFor((f) => player(f, 'p-sova')?.health === 27);
      a.s.close();
    } finally {
      svc = main;
      for (const s of started) await s.close().catch(() => undefined);
    }
  });
});
