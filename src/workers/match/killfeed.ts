// `killfeed` (docs/match-rules.md 4.3) and the killfeed fallbacks (section 11).

import type { KillfeedData } from '../../schemas/messages.js';
import { assistCodename } from './names.js';
import { cloveCreditCheck, ratio } from './scoreboard.js';
import { playerByName } from './teams.js';
import type { MatchState, PlayerState, TeamState } from './types.js';
import { touch } from './dirty.js';
import { counted } from './players.js';

/** The fallbacks only repair players without a scoreboard row this round (observer or auxiliary). */
function fallbackApplies(player: PlayerState): boolean {
  return !player.scoreboardAvailable && !player.auxiliaryAvailable.scoreboard;
}

function firstWithAgent(team: TeamState, codename: string): PlayerState | undefined {
  for (const p of team.players) if (p.agentInternal === codename) return p;
  return undefined;
}

function creditAttacker(team: TeamState, attacker: PlayerState, data: KillfeedData): void {
  touch(attacker);
  attacker.killsByWeaponsAndAbilities = counted(attacker.killsByWeaponsAndAbilities, data.weaponKillfeedInternal);
  attacker.killedPlayerNames.push(data.victim);
  if (data.headshotKill === true) {
    attacker.headshotKills += 1;
    attacker.headshotRatio = ratio(attacker.headshotKills, attacker.kills);
  }
  if (data.isTeamkill === true) {
    attacker.teamKills += 1;
    attacker.killsOnTeammatePlayer = counted(attacker.killsOnTeammatePlayer, data.victim);
  } else if (data.isTeamkill === false) {
    attacker.killsOnEnemyPlayer = counted(attacker.killsOnEnemyPlayer, data.victim);
  }

  // Fallback kill
  if (fallbackApplies(attacker)) {
    cloveCreditCheck(attacker);
    attacker.kills += 1;
    attacker.killsThisRound += 1;
  }

  // Fallback assists, in the attacker's team
  if (team.hasDuplicateAgents || !Array.isArray(data.assists)) return;
  for (const icon of data.assists) {
    if (typeof icon !== 'string') continue;
    const codename = assistCodename(icon);
    if (codename === undefined) continue;
    const assistant = firstWithAgent(team, codename);
    if (assistant && fallbackApplies(assistant)) {
      touch(assistant);
      cloveCreditCheck(assistant);
      assistant.assists += 1;
    }
  }
}

export function applyKillfeed(state: MatchState, data: KillfeedData): void {
  for (const team of state.teams) {
    const attacker = playerByName(team, data.attacker);
    if (attacker) creditAttacker(team, attacker, data);
    const victim = playerByName(team, data.victim);
    if (victim && fallbackApplies(victim)) {
      touch(victim);
      victim.isAlive = false;
      victim.health = 0;
      victim.deaths += 1;
      victim.deathsThisRound += 1;
    }
  }
}
