// A round's end as match events tell it (docs/events.md, "How a round was won"): the score change
// opens it (winner, side, score, time), and it is settled, `round_ended` emitted, once every message
// of the round's last moment is in: before the first message more than ROUND_SETTLE_MS after the
// score (by the match's clock), when the round record is written (the next buy phase, the game's
// end), or when the match is removed. The game gives no order among the messages of one moment (the
// score, the phase change, the defuse, the last kill), so nothing is decided at the score itself.
import type { RoundWinMethod, Score, TeamId } from '../../protocol/match-events.js';
import { outcome } from '../match/rounds.js';
import { teamByIngameId } from '../match/teams.js';
import type { MatchState, RoundRecordType } from '../match/types.js';

/**
 * How long after the score the round's messages may still come (match clock, ms). In the recording
 * the last moment's messages arrive within 44 ms of each other (round 14: the score, the phase
 * change, the last kill), a kill after the round ended 412 ms and more after it.
 */
export const ROUND_SETTLE_MS = 250;

/** A round whose score changed, not settled yet; journaled with the deriver (snapshots.ts). */
export interface PendingEnd {
  round: number;
  /** The score change's time: the event's. */
  at: number;
  winner: TeamId;
  side: 'attack' | 'defense';
  score: Score;
}

const METHOD: Partial<Record<RoundRecordType, RoundWinMethod>> = { detonated: 'detonation', defused: 'defuse', timeout: 'time', kills: 'elimination' };

/** Whether the state has moved past the round: its record is written, or another round began. */
export function roundMovedOn(state: MatchState, end: PendingEnd): boolean {
  return state.roundNumber !== end.round || state.roundPhase === 'shopping' || state.roundPhase === 'game_end';
}

/**
 * The engine's own rule (docs/match-rules.md 8): the winner's round record entry once it is written,
 * else the rule applied to the state now (the flags the record will be written from).
 */
export function winMethod(state: MatchState, end: PendingEnd): RoundWinMethod {
  const recorded = teamByIngameId(state, end.winner).roundRecord[end.round - 1]?.type;
  const fromRecord = recorded === undefined ? undefined : METHOD[recorded];
  if (fromRecord) return fromRecord;
  const now = outcome(state);
  return METHOD[end.side === 'attack' ? now.attackers : now.defenders] ?? 'elimination';
}
