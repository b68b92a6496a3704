// How events name players, teams and the score (protocol/match-events.ts), from the engine's state:
// a team by its game team (`team`) and by where the overlays and feeds show it (`overlayTeam`).
import type { MatchPlayerLine, OverlayTeam, PlayerRef, RoundPlayerLine, Score, TeamId, TeamRef } from '../../protocol/match-events.js';
import { teamByIngameId } from '../match/teams.js';
import type { MatchState, PlayerState, TeamState } from '../match/types.js';

/** Where the overlays and the feeds show the game team `team`: the match's first team is the left one. */
export function overlayTeamOf(state: MatchState, team: TeamId): OverlayTeam {
  return state.teams[0].ingameTeamId === team ? 'left' : 'right';
}

export function playerRef(state: MatchState, p: PlayerState, team: TeamId): PlayerRef {
  return { playerId: p.riotId, name: p.name, agent: p.agentProper, team, overlayTeam: overlayTeamOf(state, team) };
}

export function teamRef(state: MatchState, t: TeamState): TeamRef {
  return { team: t.ingameTeamId, name: t.teamName, tricode: t.teamTricode, overlayTeam: overlayTeamOf(state, t.ingameTeamId) };
}

export function score(state: MatchState): Score {
  return { team_0: teamByIngameId(state, 0).roundsWon, team_1: teamByIngameId(state, 1).roundsWon };
}

/** The player of this name and their game team, or undefined (a name the roster does not have). */
export function findByName(state: MatchState, name: string): { player: PlayerState; team: TeamId } | undefined {
  for (const t of state.teams) for (const p of t.players) if (p.name === name) return { player: p, team: t.ingameTeamId };
  return undefined;
}

/** `spent`: the credits a player spent in the round's buy phase (round-tracker.ts). */
export function roundLines(state: MatchState, spent: (p: PlayerState) => number): RoundPlayerLine[] {
  return byPosition(state).map(({ p, team }) => ({ playerId: p.riotId, name: p.name, team, kills: p.kills, deaths: p.deaths, assists: p.assists, spent: spent(p), overlayTeam: overlayTeamOf(state, team) }));
}

/** Each player with 2 or more enemy kills in the round (`killsOf`, by name), in the players' order: round_ended's `multiKills`. */
export function multiKills(state: MatchState, killsOf: (name: string) => number): { player: PlayerRef; kills: number }[] {
  return byPosition(state).filter(({ p }) => killsOf(p.name) >= 2).map(({ p, team }) => ({ player: playerRef(state, p, team), kills: killsOf(p.name) }));
}

export function matchLines(state: MatchState): MatchPlayerLine[] {
  return byPosition(state).map(({ p, team }) => ({ playerId: p.riotId, name: p.name, agent: p.agentProper, team, kills: p.kills, deaths: p.deaths, assists: p.assists, overlayTeam: overlayTeamOf(state, team) }));
}

/**
 * Every player, game team 0 first, each team in the game's roster order (`position`), not in the
 * order their roster messages came (the game gives none among messages of one millisecond).
 */
function byPosition(state: MatchState): { p: PlayerState; team: TeamId }[] {
  const out: { p: PlayerState; team: TeamId }[] = [];
  for (const id of [0, 1] as const) for (const p of teamByIngameId(state, id).players) out.push({ p, team: id });
  return out.sort((a, b) => a.team - b.team || a.p.position - b.p.position);
}

/** Both teams, game team 0 first. */
export function teams(state: MatchState): [TeamRef & { startsOnAttack: boolean }, TeamRef & { startsOnAttack: boolean }] {
  const t0 = teamByIngameId(state, 0);
  const t1 = teamByIngameId(state, 1);
  return [{ ...teamRef(state, t0), startsOnAttack: true }, { ...teamRef(state, t1), startsOnAttack: false }];
}
