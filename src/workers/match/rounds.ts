// Round phases (docs/match-rules.md 6), side switch and overtime (7), round records (8), `score` (4.9),
// `game_mode` (4.7), the side swaps (4.14, 4.15) and the game end (14.2).

import type { RoundInfoData, ScoreData } from '../../schemas/messages.js';
import { playercamFetchEffect } from './playercams.js';
import { teamByIngameId } from './teams.js';
import { raise, stopTimeoutTimers } from './timeouts.js';
import { startMoneyRecord } from './economy.js';
import { toastOff } from './toast.js';
import type { EngineCore, MatchState, RoundRecordType, TeamState } from './types.js';
import { touch } from './dirty.js';

export const ROUND_MIN = 1;
export const ROUND_MAX = 99;
export const ROUND_TIME_MS = 99_000;
/** entries after the recorded round that are (re)written as upcoming */
export const UPCOMING_AHEAD = 5;
export const OVERTIME_TIMEOUT_CAP = 2;
export const SWITCH_ROUND_MONEY = 800;

export function roundInRange(n: number): boolean {
  return Number.isInteger(n) && n >= ROUND_MIN && n <= ROUND_MAX;
}

/** `game_mode` (4.7). */
export function applyGameMode(state: MatchState, mode: string): void {
  state.matchType = mode;
  if (mode === 'swift') {
    state.switchRound = 5;
    state.firstOtRound = 99;
  } else {
    state.switchRound = 13;
    state.firstOtRound = 25;
  }
}

/** Outcome of the round just played, for the attacking and the defending side (8); also how match events name the win (workers/events/round-end.ts). */
export function outcome(state: MatchState): { attackers: RoundRecordType; defenders: RoundRecordType } {
  if (state.attackersWon) return { attackers: state.spikeState.detonated ? 'detonated' : 'kills', defenders: 'lost' };
  if (state.spikeState.defused) return { attackers: 'lost', defenders: 'defused' };
  if (state.wasTimeout) return { attackers: 'lost', defenders: 'timeout' };
  return { attackers: 'lost', defenders: 'kills' };
}

/**
 * Writes round `round` for one team, then (re)writes rounds round+1 … round+5 as upcoming, all with
 * the team's current side. Missing entries below the written range are filled as upcoming too, so
 * the array never has holes.
 */
function writeRecord(team: TeamState, round: number, type: RoundRecordType): void {
  const record = team.roundRecord;
  touch(record);
  const wasAttack = team.isAttacking;
  for (let r = record.length + 1; r < round; r++) record.push({ type: 'upcoming', wasAttack, round: r });
  record[round - 1] = { type, wasAttack, round };
  for (let r = round + 1; r <= round + UPCOMING_AHEAD; r++) record[r - 1] = { type: 'upcoming', wasAttack, round: r };
}

/** Records round R for both teams, before any side switch of the following shopping. */
export function recordRound(state: MatchState, round: number): void {
  const { attackers, defenders } = outcome(state);
  for (const team of state.teams) writeRecord(team, round, team.isAttacking ? attackers : defenders);
}

function shopping(core: EngineCore, now: number): void {
  const state = core.state;
  const round = state.roundNumber;
  // 1
  if (round !== 1) recordRound(state, round - 1);
  // 2: overtime timeout grant, once per match
  if (round >= state.firstOtRound && !state.hasEnteredOvertime) {
    state.hasEnteredOvertime = true;
    touch(state.tools);
    const counter = state.tools.timeoutCounter;
    counter.left = Math.min(OVERTIME_TIMEOUT_CAP, counter.left + 1);
    counter.right = Math.min(OVERTIME_TIMEOUT_CAP, counter.right + 1);
    raise(core, now);
  }
  // 3
  const cams = playercamFetchEffect(core);
  if (cams) core.effects.push(cams);
  // 4
  const spike = state.spikeState;
  spike.planted = false;
  spike.detonated = false;
  spike.defused = false;
  // 5
  const switchRound = round === state.switchRound || round >= state.firstOtRound;
  if (switchRound) for (const team of state.teams) team.isAttacking = !team.isAttacking;
  // 6
  for (const team of state.teams) {
    for (const p of team.players) {
      touch(p);
      p.killsThisRound = 0;
      p.deathsThisRound = 0;
      p.killedPlayerNames = [];
      p.moneySpent = 0;
      p.spentMoneyThisRound = false;
      if (switchRound) p.money = SWITCH_ROUND_MONEY;
      p.scoreboardAvailable = false;
      p.auxiliaryAvailable.scoreboard = false;
      p.isAlive = true;
      p.health = 100;
    }
  }
  // 7
  if (state.isRegistered && round !== 1) core.effects.push({ kind: 'update', matchId: state.matchId });
  // 8.1: the economy record's entry of this round
  startMoneyRecord(state);
}

function combat(core: EngineCore, now: number): void {
  const state = core.state;
  for (const team of state.teams) {
    if (team.hasDuplicateAgents) continue;
    const seen = new Set<string>();
    for (const p of team.players) {
      if (seen.has(p.agentInternal)) {
        team.hasDuplicateAgents = true;
        break;
      }
      seen.add(p.agentInternal);
    }
  }
  state.roundTimeoutTime = now + ROUND_TIME_MS;
  state.wasTimeout = false;
  toastOff(core);
}

function end(state: MatchState, now: number): void {
  state.wasTimeout = state.roundTimeoutTime !== undefined && now >= state.roundTimeoutTime;
  state.roundTimeoutTime = undefined;
  state.spikeDetonationTime = undefined;
}

function gameEnd(core: EngineCore): void {
  const state = core.state;
  state.isRunning = false;
  recordRound(state, state.roundNumber);
  stopTimeoutTimers(core);
  const [left, right] = state.teams;
  core.effects.push({
    kind: 'team_info_final',
    info: {
      higherScore: left.roundsWon > right.roundsWon ? 0 : 1,
      // copies: effects are plain data that leave the engine
      tournamentInfo: JSON.parse(JSON.stringify(state.tools.tournamentInfo)),
      sponsorInfo: JSON.parse(JSON.stringify(state.tools.sponsorInfo)),
      isSupporter: state.orgIsSupporter,
    },
  });
  if (state.isRegistered) {
    core.effects.push({ kind: 'complete', matchId: state.matchId });
    if (state.orgIsSupporter) core.effects.push({ kind: 'stats_fetch', matchId: state.matchId, delayMs: 15_000 });
  }
  core.ended = true;
}

/** `round_info` (4.8, 6). The caller has checked `roundInRange`. */
export function applyRoundInfo(core: EngineCore, data: RoundInfoData, now: number): void {
  const state = core.state;
  state.roundNumber = data.roundNumber;
  state.roundPhase = data.roundPhase;
  switch (data.roundPhase) {
    case 'shopping':
      shopping(core, now);
      break;
    case 'combat':
      combat(core, now);
      break;
    case 'end':
      end(state, now);
      break;
    case 'game_end':
      gameEnd(core);
      break;
    default:
      break; // game_start and anything else: stored only
  }
}

/** `score` (4.9). */
export function applyScore(state: MatchState, data: ScoreData, now: number): void {
  const team0 = teamByIngameId(state, 0);
  const team1 = teamByIngameId(state, 1);
  if (data.team_0 > team0.roundsWon) state.attackersWon = team0.isAttacking;
  else if (data.team_1 > team1.roundsWon) state.attackersWon = team1.isAttacking;
  if (state.roundTimeoutTime !== undefined) state.wasTimeout = now >= state.roundTimeoutTime;
  team0.roundsWon = data.team_0;
  team1.roundsWon = data.team_1;
  state.spikeState.planted = false;
}

/** `swap_left_right` (4.14): the timeout flags stay where they are. */
export function swapLeftRight(state: MatchState): void {
  state.teams.reverse();
  touch(state.tools);
  const counter = state.tools.timeoutCounter;
  const left = counter.left;
  counter.left = counter.right;
  counter.right = left;
}

/** `swap_attacker_defender` (4.15): ingameTeamId and players stay. */
export function swapAttackerDefender(state: MatchState): void {
  const [a, b] = state.teams;
  a.isAttacking = !a.isAttacking;
  b.isAttacking = !b.isAttacking;
  const won = a.roundsWon;
  a.roundsWon = b.roundsWon;
  b.roundsWon = won;
  const record = a.roundRecord;
  a.roundRecord = b.roundRecord;
  b.roundRecord = record;
}
