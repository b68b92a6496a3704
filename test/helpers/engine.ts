// Shared helpers of the engine tests (test/engine-*.test.ts).

import type { TeamRow } from '../../src/schemas/messages.js';
import { recordedMatch } from '../../src/tools/recorded-match.js';
import { Match, type MatchLogon } from '../../src/workers/match/match.js';
import { DEFAULT_SPONSOR_LOGO_URL } from '../../src/workers/match/tools.js';
import type { MatchState, PlayerState } from '../../src/workers/match/types.js';
import { watchingAllMatches } from './serializer-check.js';

// Every engine test also checks the serializer's dirty marks after each change: each file calls
// watchAllMatches() at its top level (helpers/serializer-check.ts; the check ends with the file), and
// these helpers refuse to work without it.
export { watchAllMatches } from './serializer-check.js';
function watched(): void {
  if (!watchingAllMatches()) throw new Error('an engine test file calls watchAllMatches() at its top level (helpers/serializer-check.ts)');
}


export interface ReplayRecord {
  type: string;
  data: unknown;
  timestamp: number;
  [k: string]: unknown;
}

export interface Replay {
  header: {
    groupCode: string;
    leftTeam: MatchLogon['leftTeam'];
    rightTeam: MatchLogon['rightTeam'];
    toolsData?: unknown;
    logStartTime: number;
  };
  records: ReplayRecord[];
}

let cached: Replay | undefined;

export function loadReplay(): Replay {
  watched();
  if (!cached) {
    cached = recordedMatch() as unknown as Replay;
  }
  return cached;
}

export const SETTINGS = { sponsorLogoUrl: DEFAULT_SPONSOR_LOGO_URL };

/** A new Match of the recorded match, as its logon created it at the recording's start (a fresh one each call). */
export function recordedMatchAtStart(): Match {
  const h = loadReplay().header;
  return Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam, rightTeam: h.rightTeam, toolsData: h.toolsData, organizationId: '', isSupporter: false }, h.logStartTime, SETTINGS);
}
export const GROUP = 'K7QX2M';
export const T0 = 1_795_309_700_000;

export function logon(overrides: Partial<MatchLogon> = {}): MatchLogon {
  watched();
  return {
    groupCode: GROUP,
    leftTeam: { name: 'Team Alpha', tricode: 'ALP', url: 'https://cdn.example.org/alpha.png', attackStart: true },
    rightTeam: { name: 'Team Bravo', tricode: 'BRV', url: 'https://cdn.example.org/bravo.png', attackStart: false },
    organizationId: '',
    isSupporter: false,
    ...overrides,
  };
}

/** A scripted match: `send(type, data)` applies an observer message at the current clock. */
export class Script {
  readonly match: Match;
  now: number;

  constructor(l: MatchLogon = logon(), now = T0) {
    watched();
    this.now = now;
    this.match = Match.create(l, now, SETTINGS);
  }

  get state(): MatchState {
    return this.match.liveState();
  }

  at(ms: number): this {
    this.now = ms;
    return this;
  }

  wait(ms: number): this {
    this.now += ms;
    this.match.advance(this.now);
    return this;
  }

  send(type: string, data: unknown): ReturnType<Match['apply']> {
    return this.match.apply({ obsName: 'Observer#EUW', groupCode: GROUP, type, data }, this.now);
  }

  /** An auxiliary session's message: the session's player is the envelope's. */
  aux(playerId: string, type: string, data: unknown): ReturnType<Match['apply']> {
    return this.match.applyAux({ playerId, matchId: 'm-1', type, data }, playerId, this.now);
  }

  ok(type: string, data: unknown): void {
    const r = this.send(type, data);
    if (!r.ok) throw new Error(`${type} rejected: ${r.reason} ${r.detail ?? ''}`);
  }

  phase(roundNumber: number, roundPhase: string): void {
    this.ok('round_info', { roundNumber, roundPhase });
  }

  player(riotId: string): PlayerState {
    for (const t of this.state.teams) for (const p of t.players) if (p.riotId === riotId) return p;
    throw new Error(`no player ${riotId}`);
  }
}

/** Ten players: team 0 (starts on attack) a0..a4, team 1 b0..b4. */
export const AGENTS_0 = ['Wushu', 'Smonk', 'Rift', 'Hunter', 'Pine'];
export const AGENTS_1 = ['Gumshoe', 'Breach', 'Thorne', 'Killjoy', 'Wraith'];

export function rosterAll(s: Script, agents0 = AGENTS_0, agents1 = AGENTS_1): void {
  for (let i = 0; i < 5; i++) {
    s.ok('roster', {
      name: `A${i}`, tagline: 'EUW', startTeam: '0', agentInternal: agents0[i], playerId: `a${i}`,
      position: i + 5, locked: true, rank: 0,
    });
    s.ok('roster', {
      name: `B${i}`, tagline: 'NA1', startTeam: '1', agentInternal: agents1[i], playerId: `b${i}`,
      position: i, locked: true, rank: 0,
    });
  }
}

/** A `scoreboard` row as the tests send it (numeric startTeam; name and tagline as older clients add them). */
export interface Row extends TeamRow {
  startTeam: number;
  name?: string;
  tagline?: string;
}

export function row(playerId: string, over: Partial<Row> = {}): Row {
  const team = playerId.startsWith('a') ? 0 : 1;
  const i = Number(playerId.slice(1));
  return {
    name: `${team === 0 ? 'A' : 'B'}${i}`,
    tagline: team === 0 ? 'EUW' : 'NA1',
    playerId,
    startTeam: team,
    agentInternal: (team === 0 ? AGENTS_0 : AGENTS_1)[i],
    isAlive: true,
    initialArmor: 2,
    scoreboardWeaponInternal: 'TX_Hud_Rifles_Volcano',
    currUltPoints: 0,
    maxUltPoints: 7,
    hasSpike: false,
    money: 800,
    kills: 0,
    deaths: 0,
    assists: 0,
    ...over,
  };
}

/** JSON.stringify semantics of the snapshot, as a plain tree. */
export function plain(m: Match): unknown {
  return JSON.parse(JSON.stringify(m.liveState()));
}

/** The serverTime the engine tests serialize frames with (serializeMatch's second argument). */
export const SERVER_TIME = 1_723_602_000_000;

/** JSON.stringify semantics of a frame: the snapshot plus serverTime, as a plain tree. */
export function plainFrame(m: Match, serverTime = SERVER_TIME): unknown {
  return JSON.parse(JSON.stringify({ ...m.liveState(), serverTime }));
}
