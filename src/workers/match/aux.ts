// Auxiliary messages (docs/match-rules.md 5) and what an auxiliary session may send at all. Routing by
// match id belongs to the caller; the auxiliary trust rule (auxSessionRefusal) is the engine's.

import type { AbilitiesData, ScoreboardRow, TeamRow } from '../../schemas/messages.js';
import { AGENT } from './names.js';
import { updateMoneyRecord } from './economy.js';
import { auxRowUpdate } from './scoreboard.js';
import { detectPlantFromMoney } from './spike.js';
import { playerById, playerInMatch, teamByStartTeam } from './teams.js';
import type { MatchState, TeamState } from './types.js';
import { touch } from './dirty.js';

/** The auxiliary types of docs/match-rules.md 5: the only ones an auxiliary session may send (docs/client-contract.md 4.4). */
export const AUX_TYPES: ReadonlySet<string> = new Set([
  'aux_scoreboard',
  'aux_scoreboard_team',
  'aux_health',
  'aux_abilities',
  'aux_astra_targeting',
  'aux_cypher_cam',
]);

/**
 * The auxiliary trust rule (docs/reliability.md): an auxiliary session carries no key and the match id
 * and player ids are public, so its envelope is refused unless its type is one of AUX_TYPES
 * (`not_aux_type`, whatever else the envelope claims: groupCode, obsName, playerId) and its playerId
 * is the session's own player (`player_mismatch`; the real client always sends its own id, docs/client-contract.md
 * 4.4, and the envelope playerId decides whose health, abilities, icon and team rows change).
 * Null: it may be applied.
 */
export function auxSessionRefusal(type: unknown, envelopePlayerId: unknown, sessionPlayerId: string, data: unknown): 'not_aux_type' | 'player_mismatch' | null {
  if (typeof type !== 'string' || !AUX_TYPES.has(type)) return 'not_aux_type';
  if (envelopePlayerId !== sessionPlayerId) return 'player_mismatch';
  // An `aux_scoreboard` row is the session's own: the aux-observer mode that sends every row runs on
  // a spectator, who cannot log on (docs/reliability.md), so another player's row is an impostor's.
  if (type === 'aux_scoreboard' && (typeof data !== 'object' || data === null || (data as { playerId?: unknown }).playerId !== sessionPlayerId)) return 'player_mismatch';
  return null;
}

/** `aux_scoreboard`: one full row, routed by its own startTeam and playerId. */
export function applyAuxScoreboard(state: MatchState, row: ScoreboardRow, ts: number): void {
  const team = teamByStartTeam(state, row.startTeam);
  if (!team) return;
  detectPlantFromMoney(state, team, row.playerId, row.money, ts);
  const player = playerById(team, row.playerId);
  if (!player) return;
  auxRowUpdate(player, row);
  updateMoneyRecord(state, team);
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
  updateMoneyRecord(state, team);
}

export function applyAuxHealth(state: MatchState, playerId: string, health: number): void {
  const player = playerInMatch(state, playerId);
  if (!player) return;
  touch(player);
  player.health = health;
  player.auxiliaryAvailable.health = true;
}

export function applyAuxAbilities(state: MatchState, playerId: string, data: AbilitiesData): void {
  const player = playerInMatch(state, playerId);
  if (!player) return;
  touch(player);
  player.abilities = { grenade: data.grenade, ability1: data.ability_1, ability2: data.ability_2 };
  player.auxiliaryAvailable.abilities = true;
}

export function applyAstraTargeting(state: MatchState, playerId: string, targeting: boolean): void {
  const player = playerInMatch(state, playerId);
  if (player && player.agentProper === AGENT.astra) {
    touch(player);
    player.iconNameSuffix = targeting ? 'Targeting' : '';
  }
}

export function applyCypherCam(state: MatchState, playerId: string, viewing: boolean): void {
  const player = playerInMatch(state, playerId);
  if (player && player.agentProper === AGENT.cypher) {
    touch(player);
    player.iconNameSuffix = viewing ? 'Cam' : '';
  }
}

/** An auxiliary client of this player went away: all its flags drop. Returns whether the player exists. */
export function auxDisconnected(state: MatchState, playerId: string): boolean {
  const player = playerInMatch(state, playerId);
  if (!player) return false;
  touch(player);
  const aux = player.auxiliaryAvailable;
  aux.health = false;
  aux.abilities = false;
  aux.scoreboard = false;
  return true;
}
