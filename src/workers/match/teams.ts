// Teams (docs/match-rules.md 2.3) and team lookups (section 3).

import type { AuthTeam, PlayerState, RoundRecordEntry, TeamState, MatchState } from './types.js';

export const INITIAL_RECORD_LENGTH = 25;

export function createTeam(auth: AuthTeam, ingameTeamId: 0 | 1, removeTricode: boolean): TeamState {
  const isAttacking = ingameTeamId === 0;
  const roundRecord: RoundRecordEntry[] = [];
  for (let round = 1; round <= INITIAL_RECORD_LENGTH; round++) {
    roundRecord.push({ type: 'upcoming', wasAttack: isAttacking, round });
  }
  return {
    teamName: text(auth?.name),
    teamTricode: text(auth?.tricode),
    teamUrl: text(auth?.url),
    ingameTeamId,
    isAttacking,
    hasHandledTeam: false,
    roundsWon: 0,
    spentThisRound: 0,
    roundRecord,
    moneyRecord: [],
    removeTricode,
    players: [],
    playerCount: 0,
    hasDuplicateAgents: false,
  };
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/**
 * Game team ids for the logon's teams: 0 for the team that starts on attack. If both (or neither)
 * claim to start on attack, left = 0 and right = 1 (docs/match-rules.md 2.3, difference 6).
 */
export function assignIngameIds(left: AuthTeam, right: AuthTeam): { left: 0 | 1; right: 0 | 1; conflict: boolean } {
  const leftAttacks = left?.attackStart === true;
  const rightAttacks = right?.attackStart === true;
  if (leftAttacks === rightAttacks) return { left: 0, right: 1, conflict: true };
  return leftAttacks ? { left: 0, right: 1, conflict: false } : { left: 1, right: 0, conflict: false };
}

/** The team with `ingameTeamId === Number(startTeam)` (roster sends a string, scoreboard a number). */
export function teamByStartTeam(state: MatchState, startTeam: string | number): TeamState | undefined {
  const id = Number(startTeam);
  const [a, b] = state.teams;
  if (a.ingameTeamId === id) return a;
  if (b.ingameTeamId === id) return b;
  return undefined;
}

export function teamByIngameId(state: MatchState, id: 0 | 1): TeamState {
  const [a, b] = state.teams;
  return a.ingameTeamId === id ? a : b;
}

export function playerById(team: TeamState, playerId: string): PlayerState | undefined {
  const players = team.players;
  for (let i = 0; i < players.length; i++) if (players[i].riotId === playerId) return players[i];
  return undefined;
}

/** First player with this id in teams[0], then teams[1]. */
export function playerInMatch(state: MatchState, playerId: string): PlayerState | undefined {
  return playerById(state.teams[0], playerId) ?? playerById(state.teams[1], playerId);
}

export function teamOfPlayer(state: MatchState, playerId: string): TeamState | undefined {
  const [a, b] = state.teams;
  if (playerById(a, playerId)) return a;
  if (playerById(b, playerId)) return b;
  return undefined;
}

export function playerByName(team: TeamState, name: string): PlayerState | undefined {
  const players = team.players;
  for (let i = 0; i < players.length; i++) if (players[i].name === name) return players[i];
  return undefined;
}
