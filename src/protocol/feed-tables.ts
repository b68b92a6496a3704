// The feeds' tables (README "Feeds for graphics systems"): a live match's match_data frame as flat
// rows of the shapes vMix, Singular, H2R and NodeCG read (an array of flat objects, one value per
// cell). A whitelist: only the members named here are copied, so nothing a frame could ever carry
// beyond them reaches a feed (the frame itself holds no secret: docs/match-rules.md 16.1).
//
// Pure: the frame's parsed JSON (or, in a shard, the match's state it is serialized from) in, rows out.
// Here on the protocol floor: a shard makes the tables of a polled match (GET /feeds) and sends them
// to the main thread instead of the frame's text (main/feeds/shard-tables.ts). The running clock is the one value that depends on
// the time of the request (a frame is made when the match changes, not every second), so the
// scoreboard row is made in two steps: `scoreboardBase` once per frame, `withClock` per request.

/** One cell: what a flat table can hold. */
export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;

/** The feeds served, by name (GET /feeds/:groupCode/<name>). */
export const FEED_NAMES = ['scoreboard', 'players'] as const;
export type FeedName = (typeof FEED_NAMES)[number];

// The members read, as the frame has them (src/schemas/match-data.ts); read defensively all the same.
interface PlayerData {
  name?: string; tagline?: string; riotId?: string; agentProper?: string; agentInternal?: string; isAlive?: boolean; health?: number;
  kills?: number; deaths?: number; assists?: number; killsThisRound?: number; headshotKills?: number;
  money?: number; moneySpent?: number; currUltPoints?: number; maxUltPoints?: number; ultReady?: boolean;
  armorName?: string; highestWeapon?: string; hasSpike?: boolean; isObserved?: boolean; position?: number;
}
interface TeamData {
  teamName?: string; teamTricode?: string; teamUrl?: string; isAttacking?: boolean; roundsWon?: number;
  spentThisRound?: number; players?: PlayerData[];
}
export interface MatchData {
  groupCode?: string; matchId?: string; matchType?: string; map?: string; isRunning?: boolean;
  roundNumber?: number; roundPhase?: string; roundTimeoutTime?: number; spikeDetonationTime?: number;
  teams?: TeamData[];
  spikeState?: { planted?: boolean; detonated?: boolean; defused?: boolean };
  timeoutState?: { techPause?: boolean; leftTeam?: boolean; rightTeam?: boolean; timeRemaining?: number };
  tools?: { seriesInfo?: { wonLeft?: number | null; wonRight?: number | null }; timeoutCounter?: { left?: number; right?: number } };
  serverTime?: number;
}

/** What the scoreboard's clock is computed from at request time. */
export interface Clock {
  /** Epoch ms the running clock reaches 0 (spike, then round), or null when none runs. */
  endsAt: number | null;
  kind: 'spike' | 'round' | 'timeout' | '';
  /** A team timeout's seconds left as the frame says (it is counted down by the service's own frames). */
  timeoutSeconds: number;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const bool = (v: unknown): boolean => v === true;
const side = (t: TeamData | undefined): string => (t?.isAttacking === true ? 'attack' : 'defense');

/** The scoreboard row without its clock cells, and what they are computed from. */
export function scoreboardBase(m: MatchData): { row: Row; clock: Clock } {
  const [left, right] = [m.teams?.[0], m.teams?.[1]];
  const spike = m.spikeState ?? {};
  const timeout = m.timeoutState ?? {};
  const series = m.tools?.seriesInfo ?? {};
  const counter = m.tools?.timeoutCounter ?? {};
  const team = (prefix: 'left' | 'right', t: TeamData | undefined, seriesWon: number | null | undefined, timeoutsLeft: number | undefined): Row => ({
    [`${prefix}Name`]: str(t?.teamName),
    [`${prefix}Tricode`]: str(t?.teamTricode),
    [`${prefix}LogoUrl`]: str(t?.teamUrl),
    [`${prefix}Score`]: num(t?.roundsWon),
    [`${prefix}Side`]: side(t),
    [`${prefix}Alive`]: (t?.players ?? []).filter((p) => p.isAlive === true).length,
    [`${prefix}SpentThisRound`]: num(t?.spentThisRound),
    [`${prefix}SeriesWon`]: typeof seriesWon === 'number' ? seriesWon : null,
    [`${prefix}TimeoutsLeft`]: typeof timeoutsLeft === 'number' ? timeoutsLeft : null,
  });
  const teamTimeout = bool(timeout.leftTeam) || bool(timeout.rightTeam);
  const clock: Clock = typeof m.spikeDetonationTime === 'number'
    ? { endsAt: m.spikeDetonationTime, kind: 'spike', timeoutSeconds: 0 }
    : typeof m.roundTimeoutTime === 'number'
      ? { endsAt: m.roundTimeoutTime, kind: 'round', timeoutSeconds: 0 }
      : teamTimeout
        ? { endsAt: null, kind: 'timeout', timeoutSeconds: Math.max(0, Math.ceil(num(timeout.timeRemaining))) }
        : { endsAt: null, kind: '', timeoutSeconds: 0 };
  const row: Row = {
    groupCode: str(m.groupCode),
    matchId: str(m.matchId),
    map: str(m.map),
    matchType: str(m.matchType),
    isRunning: bool(m.isRunning),
    roundNumber: num(m.roundNumber),
    roundPhase: str(m.roundPhase),
    ...team('left', left, series.wonLeft, counter.left),
    ...team('right', right, series.wonRight, counter.right),
    spikePlanted: bool(spike.planted),
    spikeDefused: bool(spike.defused),
    spikeDetonated: bool(spike.detonated),
    techPause: bool(timeout.techPause),
    leftTimeout: bool(timeout.leftTeam),
    rightTimeout: bool(timeout.rightTeam),
  };
  return { row, clock };
}

/** Whole seconds the clock shows at `now` (epoch ms on the match's clock). */
export function clockSeconds(clock: Clock, now: number): number {
  if (clock.kind === 'timeout') return clock.timeoutSeconds;
  if (clock.endsAt === null) return 0;
  return Math.max(0, Math.ceil((clock.endsAt - now) / 1000));
}

/** "m:ss", the way a broadcast shows a round clock; "" when no clock runs. */
export function clockText(clock: Clock, seconds: number): string {
  if (clock.kind === '') return '';
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** The scoreboard's one row with the clock cells for `seconds`. */
export function withClock(base: Row, clock: Clock, seconds: number): Row {
  return { ...base, timer: clockText(clock, seconds), timerSeconds: clock.kind === '' ? null : seconds, timerKind: clock.kind };
}

/** The players table's columns, in order (a CSV has its header also when no player has joined yet). */
export const PLAYER_COLUMNS = [
  'team', 'teamTricode', 'teamSide', 'slot', 'name', 'tagline', 'agent', 'agentInternal', 'kills', 'deaths', 'assists', 'kda',
  'killsThisRound', 'headshotKills', 'credits', 'spent', 'alive', 'health', 'armor', 'weapon', 'hasSpike', 'observed',
  'ultPoints', 'ultMax', 'ultReady', 'playerId', 'overlayTeam',
] as const;

/** One row per player (PLAYER_COLUMNS): the left team's, then the right team's, each in the frame's order. */
export function playerRows(m: MatchData): Row[] {
  const rows: Row[] = [];
  (m.teams ?? []).slice(0, 2).forEach((t, i) => {
    (t.players ?? []).forEach((p, j) => {
      const kills = num(p.kills);
      const deaths = num(p.deaths);
      const assists = num(p.assists);
      rows.push({
        team: i === 0 ? 'left' : 'right',
        teamTricode: str(t.teamTricode),
        teamSide: side(t),
        slot: j + 1,
        name: str(p.name),
        tagline: str(p.tagline),
        agent: str(p.agentProper),
        agentInternal: str(p.agentInternal),
        kills,
        deaths,
        assists,
        kda: `${kills}/${deaths}/${assists}`,
        killsThisRound: num(p.killsThisRound),
        headshotKills: num(p.headshotKills),
        credits: num(p.money),
        spent: num(p.moneySpent),
        alive: bool(p.isAlive),
        health: num(p.health),
        armor: str(p.armorName),
        weapon: str(p.highestWeapon),
        hasSpike: bool(p.hasSpike),
        observed: bool(p.isObserved),
        ultPoints: num(p.currUltPoints),
        ultMax: num(p.maxUltPoints),
        ultReady: bool(p.ultReady),
        // The game's player id: the events' and the records' playerId (added last: a column is never moved).
        playerId: str(p.riotId),
        // The key the events and the records name this team by too (as `team` here, kept for the feeds' users).
        overlayTeam: i === 0 ? 'left' : 'right',
      });
    });
  });
  return rows;
}

/** What one frame's feeds are rendered from: the scoreboard without its clock cells (and its clock), the players' rows, the frame's serverTime. */
export interface FeedTables {
  scoreboard: { row: Row; clock: Clock };
  players: Row[];
  serverTime: number;
}

/** A frame's tables: `m` its parsed JSON, or the match state it was serialized from with its `serverTime`. */
export function feedTablesOf(m: MatchData, serverTime?: number): FeedTables {
  return { scoreboard: scoreboardBase(m), players: playerRows(m), serverTime: serverTime ?? (typeof m.serverTime === 'number' ? m.serverTime : 0) };
}
