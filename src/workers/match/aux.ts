// Auxiliary messages (match-rules.md 5). The player-id binding of auxiliary sessions (empty session
// player id taken from the first aux_scoreboard, routing by match id) belongs to the caller.

import type { AbilitiesData, ScoreboardRow, TeamRow } from '../../schemas/messages.js';
import { AGENT } from './names.js';
import { auxRowUpdate } from './scoreboard.js';
import { detectPlantFromMoney } from './spike.js';
import { playerById, playerInMatch, teamByStartTeam } from './teams.js';
import type { MatchState, TeamState } from './types.js';

/** `aux_scoreboard`: one full row, routed by its own startTeam and playerId. */
export function applyAuxScoreboard(state: MatchState, row: ScoreboardRow, ts: number): void {
  const team = teamByStartTeam(state, row.startTeam);
  if (!team) return;
  detectPlantFromMoney(state, team, row.playerId, row.money, ts);
  const player = playerById(team, row.playerId);
  if (player) auxRowUpdate(player, row);
}

/**
 * `aux_scoreboard_team`: rows of the sender's team (the caller found `team` from the envelope
 * playerId). Plant detection runs over all rows first, then the row updates.
 */
export function applyAuxScoreboardTeam(state: MatchState, team: TeamState, rows: TeamRow[], ts: number): void {
  for (const row of rows) detectPlantFromMoney(state, team, row.playerId, row.money, ts);
  for (const row of rows) {
    const player = playerById(team, row.playerId);
    if (player) auxRowUpdate(player, row);
  }
}

export function applyAuxHealth(state: MatchState, playerId: string, health: number): void {
  const player = playerInMatch(state, playerId);
  if (!player) return;
  player.health = health;
  player.auxiliaryAvailable.health = true;
}

export function applyAuxAbilities(state: MatchState, playerId: string, data: AbilitiesData): void {
  const player = playerInMatch(state, playerId);
  if (!player) return;
  player.abilities = { grenade: data.grenade, ability1: data.ability_1, ability2: data.ability_2 };
  player.auxiliaryAvailable.abilities = true;
}

export function applyAstraTargeting(state: MatchState, playerId: string, targeting: boolean): void {
  const player = playerInMatch(state, playerId);
  if (player && player.agentProper === AGENT.astra) player.iconNameSuffix = targeting ? 'Targeting' : '';
}

export function applyCypherCam(state: MatchState, playerId: string, viewing: boolean): void {
  const player = playerInMatch(state, playerId);
  if (player && player.agentProper === AGENT.cypher) player.iconNameSuffix = viewing ? 'Cam' : '';
}

/** An auxiliary client of this player went away: all its flags drop. Returns whether the player exists. */
export function auxDisconnected(state: MatchState, playerId: string): boolean {
  const player = playerInMatch(state, playerId);
  if (!player) return false;
  const aux = player.auxiliaryAvailable;
  aux.health = false;
  aux.abilities = false;
  aux.scoreboard = false;
  return true;
}
