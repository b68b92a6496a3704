// A match's record (README, "Match records"; docs/events.md): folded from its events when it ends, so
// it is exactly as durable as they are, and the same on every node. Per player and round: kills and
// deaths from the kill events (team kills apart), assists from the killfeed's assist icons,
// headshots, first bloods, plants, defuses and the credits spent in that round's buy phase; per
// player and match: the game's own kills, deaths and assists (the final scoreboard) and the sums of the rest.
import type { MatchPlayerLine, OverlayTeam, PlayerRef, RoundPlayerLine, Score } from '../../protocol/match-events.js';
import type { MatchRecord, PlayerMatchLine, PlayerRoundLine, RoundLine } from './record-store.js';
import type { MatchEvent } from './types.js';

export { summaryOf, type MatchRecord, type PlayerMatchLine, type PlayerRoundLine, type RecordSummary, type RoundLine } from './record-store.js';

const COUNTS = ['kills', 'deaths', 'assists', 'teamKills', 'headshots', 'firstBloods', 'plants', 'defuses', 'spent'] as const;

/** The record of a match from its events, the match_ended event last (its data gives the final figures). */
export function buildRecord(events: readonly MatchEvent[], ended: MatchEvent): MatchRecord {
  const builder = new RecordBuilder();
  for (const e of events) builder.add(e);
  return builder.finish(ended);
}

/**
 * A match's record folded as its events come (journal.ts): what buildRecord folds from them all at
 * the end, so that the journal need not keep a running match's events for it (match-log.ts, `pruned`).
 */
export class RecordBuilder {
  private readonly lines = new Map<string, PlayerRoundLine>(); // `${round}|${playerId}`
  private readonly names = new Map<string, { name: string; team: number; overlayTeam?: OverlayTeam }>();
  private readonly rounds: RoundLine[] = [];
  /** The first event's time: when the match started. */
  private startedAt: string | undefined;

  /** A player's line of a round (a reference without a playerId, or none, has none: an event's data is never trusted to be whole). */
  private line(round: number, p: { playerId?: string; name: string; team?: number; overlayTeam?: OverlayTeam } | undefined): PlayerRoundLine | undefined {
    if (!p?.playerId) return undefined;
    const key = `${round}|${p.playerId}`;
    let l = this.lines.get(key);
    if (!l) {
      l = { round, playerId: p.playerId, name: p.name, team: p.team ?? 0, kills: 0, deaths: 0, assists: 0, teamKills: 0, headshots: 0, firstBloods: 0, plants: 0, defuses: 0, spent: 0, ...(p.overlayTeam ? { overlayTeam: p.overlayTeam } : {}) };
      this.lines.set(key, l);
    }
    return l;
  }

  /** The match's next event (seq order; not its match_ended: finish). */
  add(e: Pick<MatchEvent, 'type' | 'round' | 'time' | 'data'>): void {
    this.startedAt ??= e.time;
    const d = e.data;
    switch (e.type) {
      case 'kill': {
        const attacker = d.attacker as PlayerRef | undefined;
        const victim = d.victim as PlayerRef | undefined;
        const a = this.line(e.round, attacker);
        if (a && d.teamKill === true) a.teamKills++;
        else if (a) {
          a.kills++;
          if (d.headshot === true) a.headshots++;
          if (d.firstBlood === true) a.firstBloods++;
        }
        const v = this.line(e.round, victim);
        if (v) v.deaths++;
        for (const assist of Array.isArray(d.assists) ? d.assists as PlayerRef[] : []) { const l = this.line(e.round, assist); if (l) l.assists++; }
        break;
      }
      case 'spike_planted': { const l = d.planter ? this.line(e.round, d.planter as PlayerRef) : undefined; if (l) l.plants++; break; }
      case 'spike_defused': { const l = d.defuser ? this.line(e.round, d.defuser as PlayerRef) : undefined; if (l) l.defuses++; break; }
      case 'round_ended': {
        this.rounds.push({ round: d.round as number, winner: d.winner as RoundLine['winner'], method: d.method as string, score: d.score as Score });
        for (const p of Array.isArray(d.players) ? d.players as RoundPlayerLine[] : []) {
          this.names.set(p.playerId, { name: p.name, team: p.team, ...(p.overlayTeam ? { overlayTeam: p.overlayTeam } : {}) });
          const l = this.line(d.round as number, p);
          if (l) l.spent = p.spent;
        }
        break;
      }
      default:
        break;
    }
  }

  /** The record, given the match_ended event. */
  finish(ended: MatchEvent): MatchRecord {
    const { rounds, names } = this;
    // Every player has a line in every round played, even an empty one (one row per player per round).
    for (const r of rounds) for (const [playerId, p] of names) this.line(r.round, { playerId, ...p });
    const playerRounds = [...this.lines.values()].sort((x, y) => x.round - y.round || x.team - y.team || x.name.localeCompare(y.name));
    const d = ended.data;
    const players: PlayerMatchLine[] = ((d.players as MatchPlayerLine[]) ?? []).map((p) => {
      const total: PlayerMatchLine = {
        playerId: p.playerId, name: p.name, agent: p.agent, team: p.team, kills: p.kills, deaths: p.deaths, assists: p.assists, teamKills: 0, headshots: 0, firstBloods: 0, plants: 0, defuses: 0, spent: 0,
        ...(p.overlayTeam ? { overlayTeam: p.overlayTeam } : {}),
      };
      for (const l of playerRounds) {
        if (l.playerId !== p.playerId) continue;
        for (const k of COUNTS) if (k !== 'kills' && k !== 'deaths' && k !== 'assists') total[k] += l[k];
      }
      return total;
    });
    return {
      matchKey: ended.matchKey, groupCode: ended.groupCode, matchId: ended.matchId, map: d.map as string, teams: d.teams,
      startedAt: this.startedAt ?? ended.time, endedAt: ended.time, storedAt: new Date().toISOString(), reason: d.reason as string, score: d.score as Score,
      series: d.series ?? null, rounds, players, playerRounds,
    };
  }
}

/** The columns of the CSV exports, in order. */
// overlayTeam last: a column is only ever added at the end (record-schema.ts lists them in this order).
export const ROUND_CSV_COLUMNS = ['matchKey', 'round', 'playerId', 'name', 'team', ...COUNTS, 'overlayTeam'] as const;
export const MATCH_CSV_COLUMNS = ['matchKey', 'playerId', 'name', 'agent', 'team', ...COUNTS, 'overlayTeam'] as const;
