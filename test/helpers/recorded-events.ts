// What the recorded match's events and record must say, computed here from the recording's own rows
// (data/replays/icebox-19-rounds.replay), independently of the service's code: each `score` row is a
// round's end (the team whose count rose won it), each `killfeed` row a kill in the round of the
// latest `round_info`, the teams from the `roster` rows' startTeam, the match totals from each
// player's last `scoreboard` row.
import { expect } from 'vitest';
import type { Replay } from './recorded.js';

type Row = { type: string; data: any; timestamp: number };

export interface ExpectedRound { round: number; winner: 0 | 1; side: 'attack' | 'defense'; score: { team_0: number; team_1: number } }
export interface ExpectedKill { round: number; attacker: string; victim: string; headshot: boolean; teamKill: boolean }

export interface RecordingFacts {
  rounds: ExpectedRound[];
  kills: ExpectedKill[];
  finalScore: { team_0: number; team_1: number };
  /** name → the game's totals (last scoreboard row). */
  totals: Map<string, { kills: number; deaths: number; assists: number }>;
  /** `${round}|${name}` → kills (team kills apart), deaths, headshots, first bloods, from the killfeed. */
  perRound: Map<string, { kills: number; deaths: number; headshots: number; firstBloods: number }>;
  teamOf: Map<string, 0 | 1>;
  /** The round of each `spike_planted` row that came during combat (the engine takes a plant then only: one came after round 9 ended). */
  plants: number[];
}

export function recordingFacts(replay: Replay): RecordingFacts {
  const rows = replay.records as unknown as Row[];
  const teamOf = new Map<string, 0 | 1>();
  for (const r of rows) if (r.type === 'roster') teamOf.set(r.data.name, Number(r.data.startTeam) as 0 | 1);
  const rounds: ExpectedRound[] = [];
  const kills: ExpectedKill[] = [];
  const totals = new Map<string, { kills: number; deaths: number; assists: number }>();
  const perRound = new Map<string, { kills: number; deaths: number; headshots: number; firstBloods: number }>();
  const plants: number[] = [];
  let phase = '';
  let round = 0;
  let prev = { team_0: 0, team_1: 0 };
  let blood = false;
  const line = (r: number, name: string) => {
    const key = `${r}|${name}`;
    let l = perRound.get(key);
    if (!l) perRound.set(key, (l = { kills: 0, deaths: 0, headshots: 0, firstBloods: 0 }));
    return l;
  };
  for (const r of rows) {
    if (r.type === 'round_info') {
      if (r.data.roundNumber !== round) blood = false;
      round = r.data.roundNumber;
      phase = r.data.roundPhase;
      if (r.data.roundPhase === 'game_end') break;
    } else if (r.type === 'spike_planted') {
      if (phase === 'combat' && plants.at(-1) !== round) plants.push(round);
    } else if (r.type === 'score') {
      const winner: 0 | 1 = r.data.team_0 > prev.team_0 ? 0 : 1;
      // Game team 0 attacks in rounds 1–12, defends from 13 (the side switch; no overtime in the recording).
      const side = (winner === 0) === (round < 13) ? 'attack' : 'defense';
      rounds.push({ round, winner, side, score: { team_0: r.data.team_0, team_1: r.data.team_1 } });
      prev = { team_0: r.data.team_0, team_1: r.data.team_1 };
    } else if (r.type === 'killfeed') {
      const teamKill = teamOf.get(r.data.attacker) === teamOf.get(r.data.victim);
      kills.push({ round, attacker: r.data.attacker, victim: r.data.victim, headshot: r.data.headshotKill === true, teamKill });
      line(round, r.data.victim).deaths++;
      if (!teamKill) {
        const a = line(round, r.data.attacker);
        a.kills++;
        if (r.data.headshotKill === true) a.headshots++;
        if (!blood) a.firstBloods++;
        blood = true;
      }
    } else if (r.type === 'scoreboard') {
      totals.set(r.data.name, { kills: r.data.kills, deaths: r.data.deaths, assists: r.data.assists });
    }
  }
  return { rounds, kills, finalScore: prev, totals, perRound, teamOf, plants };
}

/** A minimal CSV reader for the exports (quoted fields with "" escapes; no newlines inside fields in these files). */
export function parseCsv(text: string): Record<string, string>[] {
  const lines = text.trim().split(/\r?\n/);
  const split = (l: string): string[] => {
    const out: string[] = [];
    let cur = '';
    let quoted = false;
    for (let i = 0; i < l.length; i++) {
      const c = l[i];
      if (quoted) {
        if (c === '"' && l[i + 1] === '"') { cur += '"'; i++; } else if (c === '"') quoted = false; else cur += c;
      } else if (c === '"') quoted = true;
      else if (c === ',') { out.push(cur); cur = ''; } else cur += c;
    }
    out.push(cur);
    return out;
  };
  const header = split(lines[0]);
  return lines.slice(1).map((l) => Object.fromEntries(split(l).map((v, i) => [header[i], v])));
}

/** A whole match's events as a receiver got them, after a kill of the node (or service) that ran it:
 *  numbered without a gap, nothing delivered before the kill missing, the recording's round scores and
 *  kills. The events-cluster and outbox-kill tests both end on this. */
export function expectWholeMatchDelivered(
  events: Array<{ id: string; seq: number; type: string; data: Record<string, unknown> }>,
  beforeKill: Iterable<string>,
  facts: RecordingFacts,
): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const ids = new Set(events.map((e) => e.id));
  for (const id of beforeKill) expect(ids.has(id)).toBe(true);
  const rounds = events.filter((e) => e.type === 'round_ended').map((e) => (e.data as { score: unknown }).score);
  expect(rounds).toEqual(facts.rounds.map((r) => r.score));
  expect(events.filter((e) => e.type === 'kill')).toHaveLength(facts.kills.length);
}

/**
 * The recording with every run of consecutive messages that share a millisecond in the other order
 * (the game gives no order among them: issue 35's variant), made here from the real recording.
 */
export function sameMillisecondReversed<R extends { timestamp?: unknown }>(records: readonly R[]): R[] {
  const out: R[] = [];
  for (let i = 0; i < records.length;) {
    let j = i + 1;
    while (j < records.length && records[j].timestamp === records[i].timestamp) j++;
    out.push(...records.slice(i, j).reverse());
    i = j;
  }
  return out;
}

/** Index just after the record that settles round n's end (docs/events.md: the first message more than `settleMs` after its `score`). */
export function afterRoundSettled(records: ReadonlyArray<{ type?: unknown; timestamp?: unknown }>, n: number, settleMs: number): number {
  let seen = 0;
  for (let i = 0; i < records.length; i++) {
    if (records[i].type !== 'score' || ++seen !== n) continue;
    const at = records[i].timestamp as number;
    for (let j = i + 1; j < records.length; j++) if ((records[j].timestamp as number) - at > settleMs) return j + 1;
  }
  throw new Error(`no settled round end ${n}`);
}
