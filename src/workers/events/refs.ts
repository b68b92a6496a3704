// How events name players, teams and the score (protocol/match-events.ts), from the engine's state.
import type { MatchPlayerLine, PlayerRef, RoundPlayerLine, Score, TeamId, TeamRef } from '../../protocol/match-events.js';
import { teamByIngameId } from '../match/teams.js';
import type { MatchState, PlayerState, TeamState } from '../match/types.js';

export function playerRef(p: PlayerState, team: TeamId): PlayerRef {
  return { playerId: p.riotId, name: p.name, agent: p.agentProper, team };
}

export function teamRef(t: TeamState): TeamRef {
  return { team: t.ingameTeamId, name: t.teamName, tricode: t.teamTricode };
}

export function score(state: MatchState): Score {
  return { team_0: teamByIngameId(state, 0).roundsWon, team_1: teamByIngameId(state, 1).roundsWon };
}

/** The player of this name and their game team, or undefined (a name the roster does not have). */
export function findByName(state: MatchState, name: string): { player: PlayerState; team: TeamId } | undefined {
  for (const t of state.teams) for (const p of t.players) if (p.name === name) return { player: p, team: t.ingameTeamId };
  return undefined;
}

export function roundLines(state: MatchState): RoundPlayerLine[] {
  const out: RoundPlayerLine[] = [];
  for (const t of state.teams) {
    for (const p of t.players) {
      out.push({ playerId: p.riotId, name: p.name, team: t.ingameTeamId, kills: p.kills, deaths: p.deaths, assists: p.assists, spent: p.moneySpent });
    }
  }
  return out;
}

export function matchLines(state: MatchState): MatchPlayerLine[] {
  const out: MatchPlayerLine[] = [];
  for (const t of state.teams) {
    for (const p of t.players) {
      out.push({ playerId: p.riotId, name: p.name, agent: p.agentProper, team: t.ingameTeamId, kills: p.kills, deaths: p.deaths, assists: p.assists });
    }
  }
  return out;
}

/** Both teams, game team 0 first. */
export function teams(state: MatchState): [TeamRef & { startsOnAttack: boolean }, TeamRef & { startsOnAttack: boolean }] {
  const t0 = teamByIngameId(state, 0);
  const t1 = teamByIngameId(state, 1);
  return [{ ...teamRef(t0), startsOnAttack: true }, { ...teamRef(t1), startsOnAttack: false }];
}
