// Scoreboard rows: the observer `scoreboard` rule (docs/match-rules.md 4.2), the shared row update
// (4.2.1) used by observer and auxiliary rows, and the agent icon-suffix rules (section 12).

import type { ScoreboardRow, TeamRow } from '../../schemas/messages.js';
import { AGENT, agentProper, armorName, weaponDisplay } from './names.js';
import { detectPlantFromMoney } from './spike.js';
import { playerById, teamByStartTeam } from './teams.js';
import type { MatchState, PlayerState, TeamState } from './types.js';
import { touch } from './dirty.js';
import { updateMoneyRecord } from './economy.js';

/** kills / deaths, or null where the quotient is not finite (0 deaths). */
export function ratio(numerator: number, divisor: number): number | null {
  const r = numerator / divisor;
  return Number.isFinite(r) ? r : null;
}

/**
 * Clove and Veto checks of a row against the player's old values (section 12). "Set" is evaluated
 * before "clear"; a row whose kills, deaths and assists are all 0 never changes the suffix.
 */
function ultSuffixChecks(player: PlayerState, row: TeamRow): void {
  const agent = player.agentProper;
  if (agent !== AGENT.clove && agent !== AGENT.veto) return;
  if (row.kills === 0 && row.deaths === 0 && row.assists === 0) return;
  if (row.currUltPoints === 0 && player.ultReady) {
    player.iconNameSuffix = agent === AGENT.clove ? 'NotDeadYet' : 'Evolution';
  }
  if (agent === AGENT.clove && (row.kills > player.kills || row.assists > player.assists)) {
    player.iconNameSuffix = '';
  }
}

/** A kill or assist credited by the killfeed fallback clears Clove's suffix. */
export function cloveCreditCheck(player: PlayerState): void {
  if (player.agentProper === AGENT.clove) player.iconNameSuffix = '';
}

/** Death (row alive → dead) clears the suffix of Astra, Clove and Veto; Cypher's camera stays. */
function deathSuffixCheck(player: PlayerState): void {
  const agent = player.agentProper;
  if (agent === AGENT.astra || agent === AGENT.clove || agent === AGENT.veto) player.iconNameSuffix = '';
}

/** The shared row update (4.2.1), in its order. */
export function sharedRowUpdate(player: PlayerState, row: TeamRow): void {
  touch(player);
  // 1
  if (row.kills > player.kills) player.killsThisRound += 1;
  if (row.deaths > player.deaths) player.deathsThisRound += 1;
  // 2
  player.agentInternal = row.agentInternal;
  player.agentProper = agentProper(row.agentInternal);
  // 3
  ultSuffixChecks(player, row);
  // 4
  player.kills = row.kills;
  player.deaths = row.deaths;
  player.assists = row.assists;
  player.kdRatio = ratio(row.kills, row.deaths);
  // 5
  player.currUltPoints = row.currUltPoints;
  player.maxUltPoints = row.maxUltPoints;
  player.ultReady = row.currUltPoints >= row.maxUltPoints;
  // 6
  const oldMoney = player.money;
  if (!player.spentMoneyThisRound && row.money < oldMoney) player.spentMoneyThisRound = true;
  if (player.spentMoneyThisRound && row.money !== oldMoney) player.moneySpent += oldMoney - row.money;
  player.money = row.money;
  // 7, 8
  player.armorName = armorName(row.initialArmor);
  player.highestWeapon = weaponDisplay(row.scoreboardWeaponInternal);
  // 9
  if (!row.isAlive && player.isAlive) {
    deathSuffixCheck(player);
    player.health = 0;
  } else if (row.isAlive && !player.isAlive) {
    player.health = 100;
  }
  player.isAlive = row.isAlive;
  player.hasSpike = row.hasSpike;
}

/** Auxiliary row update: blocked by an observer row of this round (section 5). */
export function auxRowUpdate(player: PlayerState, row: TeamRow): void {
  if (player.scoreboardAvailable) return;
  sharedRowUpdate(player, row);
  player.auxiliaryAvailable.scoreboard = true;
}

function sumMoneySpent(team: TeamState): number {
  let sum = 0;
  for (const p of team.players) sum += p.moneySpent;
  return sum;
}

/** Observer `scoreboard` (4.2). */
export function applyScoreboard(state: MatchState, row: ScoreboardRow, ts: number): void {
  const team = teamByStartTeam(state, row.startTeam);
  if (!team) return;
  detectPlantFromMoney(state, team, row.playerId, row.money, ts);
  const player = playerById(team, row.playerId);
  if (!player) return;
  sharedRowUpdate(player, row); // touches player
  player.scoreboardAvailable = true;
  team.spentThisRound = sumMoneySpent(team);
  updateMoneyRecord(state, team);
}
