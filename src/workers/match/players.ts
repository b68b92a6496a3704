// Players and the `roster` rule (docs/match-rules.md 4.1, initial values 16.3).

import type { RosterData } from '../../schemas/messages.js';
import { agentProper, WEAPON_UNKNOWN } from './names.js';
import { remapPlayercams } from './playercams.js';
import { playerById, teamByStartTeam } from './teams.js';
import type { CountMap, EngineCore, PlayerState, TeamState } from './types.js';
import { touch } from './dirty.js';
import { rosterAgentSelect } from './agent-select.js';

export const MAX_PLAYERS_PER_TEAM = 5;

/**
 * The empty per-name counters every player starts with: one frozen object for all of them (an empty
 * null-prototype object is ~150 B in dictionary mode, and a match has 40 of them, most of which stay
 * empty for long or for good); the first count gives the player a map of its own (`counted`).
 */
export const NO_COUNTS: CountMap = Object.freeze(Object.create(null) as CountMap);

/** `map` with `key` counted once more: `map` itself, or a new map when it is NO_COUNTS. */
export function counted(map: CountMap, key: string): CountMap {
  const out = map === NO_COUNTS ? (Object.create(null) as CountMap) : map;
  out[key] = (out[key] ?? 0) + 1;
  return out;
}

export function createPlayer(data: RosterData, name: string, tagline: string): PlayerState {
  return {
    name,
    tagline,
    riotId: data.playerId,
    searchName: `${data.name} #${tagline}`,
    fullName: `${data.name}#${tagline}`,
    position: data.position,
    locked: data.locked,
    agentInternal: data.agentInternal,
    agentProper: agentProper(data.agentInternal),
    isAlive: true,
    hasSpike: false,
    isObserved: false,
    health: 100,
    abilities: { grenade: 0, ability1: 0, ability2: 0 },
    kills: 0,
    deaths: 0,
    assists: 0,
    kdRatio: 0,
    killsThisRound: 0,
    deathsThisRound: 0,
    killedPlayerNames: [],
    currUltPoints: 0,
    maxUltPoints: 0,
    ultReady: false,
    money: 0,
    moneySpent: 0,
    spentMoneyThisRound: false,
    armorName: 'None',
    highestWeapon: WEAPON_UNKNOWN,
    currentMMRTier: null,
    peakMMRTier: null,
    teamKills: 0,
    headshotKills: 0,
    headshotRatio: 0,
    killsByWeaponsAndAbilities: NO_COUNTS,
    killsOnEnemyPlayer: NO_COUNTS,
    killsOnTeammatePlayer: NO_COUNTS,
    assistsFromTeammate: NO_COUNTS,
    scoreboardAvailable: false,
    auxiliaryAvailable: { health: false, abilities: false, scoreboard: false },
    iconNameSuffix: '',
  };
}

/** The display name at creation: the team tricode is removed once if `removeTricode` is on. */
function creationName(team: TeamState, name: string): string {
  const tricode = team.teamTricode;
  if (team.removeTricode && tricode !== '' && name.startsWith(tricode)) return name.replace(tricode, '').trim();
  return name;
}

export function applyRoster(core: EngineCore, data: RosterData, ts: number): void {
  const state = core.state;
  const team = teamByStartTeam(state, data.startTeam);
  if (!team) return;
  if (state.agentSelectStartTime === undefined) state.agentSelectStartTime = ts;
  rosterAgentSelect(state);

  const tagline = data.tagline ?? '';
  if (data.playerId === '' || data.name === '' || tagline === '') return;

  const existing = playerById(team, data.playerId);
  if (existing) {
    // position, searchName and fullName keep their creation values; the raw name comes back.
    touch(existing);
    existing.name = data.name;
    existing.tagline = tagline;
    existing.agentInternal = data.agentInternal;
    existing.agentProper = agentProper(data.agentInternal);
    existing.locked = data.locked;
    return;
  }
  if (team.players.length >= MAX_PLAYERS_PER_TEAM) {
    core.effects.push({
      kind: 'warn',
      code: 'team_full',
      detail: `roster row for ${data.playerId} ignored: team ${team.ingameTeamId} already has ${team.players.length} players`,
    });
    return;
  }
  team.players.push(createPlayer(data, creationName(team, data.name), tagline));
  team.isAttacking = Number(data.startTeam) === 0;
  team.playerCount += 1;
  remapPlayercams(core);
}
