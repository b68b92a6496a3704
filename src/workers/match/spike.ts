// Spike plant, detonation, defuse and the plant detection from money (docs/match-rules.md 4.10, 9).

import { playerById } from './teams.js';
import type { MatchState, TeamState } from './types.js';

export const SPIKE_DETONATION_MS = 45_000;
export const PLANT_MONEY_BONUS = 300;

/** "Set planted": only in combat and only if not planted yet. */
export function setPlanted(state: MatchState, ts: number): void {
  if (state.spikeState.planted || state.roundPhase !== 'combat') return;
  state.spikeState.planted = true;
  state.roundTimeoutTime = undefined;
  state.spikeDetonationTime = ts + SPIKE_DETONATION_MS;
}

/** Plant detection from a scoreboard-type row: the player's money rose by exactly 300 during combat. */
export function detectPlantFromMoney(state: MatchState, team: TeamState, playerId: string, money: number, ts: number): void {
  if (state.roundPhase !== 'combat' || state.spikeState.planted) return;
  const player = playerById(team, playerId);
  if (player && money === player.money + PLANT_MONEY_BONUS) setPlanted(state, ts);
}

export function spikeDetonated(state: MatchState): void {
  state.spikeState.detonated = true;
  state.spikeDetonationTime = undefined;
}

export function spikeDefused(state: MatchState): void {
  state.spikeState.defused = true;
}
