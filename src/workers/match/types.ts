// State types of the match engine. The broadcast part (`MatchState`) has exactly the shape and key
// order of the `match_data` tree (docs/match-rules.md 16.2); src/schemas/match-data.ts is its JSON Schema.
// test/workers/match/types.test.ts checks `MatchData` against the published contract/match-data.d.ts
// (generated from that schema) member by member; its top comment says how to add a member.
// Internal data (timers, secrets, effects) lives in `EngineCore`, never inside `MatchState`.

export type RoundRecordType = 'upcoming' | 'kills' | 'detonated' | 'defused' | 'timeout' | 'lost';

export interface RoundRecordEntry {
  type: RoundRecordType;
  wasAttack: boolean;
  round: number;
}

/** Ability charges: numbers, or booleans as newer game versions send them through an auxiliary client. */
export type AbilityValue = number | boolean;

export interface Abilities {
  grenade: AbilityValue;
  ability1: AbilityValue;
  ability2: AbilityValue;
}

export interface AuxiliaryAvailable {
  health: boolean;
  abilities: boolean;
  scoreboard: boolean;
}

/** Per-name counters. Created with a null prototype, so any received name is a plain key. */
export type CountMap = Record<string, number>;

export type IconNameSuffix = '' | 'Targeting' | 'Cam' | 'NotDeadYet' | 'Evolution';

export interface PlayerState {
  name: string;
  tagline?: string;
  riotId: string;
  searchName: string;
  fullName: string;
  position: number;
  locked: boolean;
  agentInternal: string;
  agentProper: string;
  isAlive: boolean;
  hasSpike: boolean;
  isObserved: boolean;
  health: number;
  abilities: Abilities;
  kills: number;
  deaths: number;
  assists: number;
  /** null where kills / deaths is not finite */
  kdRatio: number | null;
  killsThisRound: number;
  deathsThisRound: number;
  killedPlayerNames: string[];
  currUltPoints: number;
  maxUltPoints: number;
  ultReady: boolean;
  money: number;
  moneySpent: number;
  spentMoneyThisRound: boolean;
  armorName?: string;
  highestWeapon?: string;
  currentMMRTier: number | null;
  peakMMRTier: number | null;
  teamKills: number;
  headshotKills: number;
  /** null where headshotKills / kills is not finite */
  headshotRatio: number | null;
  killsByWeaponsAndAbilities: CountMap;
  killsOnEnemyPlayer: CountMap;
  killsOnTeammatePlayer: CountMap;
  assistsFromTeammate: CountMap;
  scoreboardAvailable: boolean;
  auxiliaryAvailable: AuxiliaryAvailable;
  iconNameSuffix: IconNameSuffix;
}

/**
 * One round of a team's economy record (docs/match-rules.md 8.1): the team's credits when the round's
 * buy phase began (income included) and what the team spent in that buy phase, net of sell-backs.
 */
export interface MoneyRecordEntry {
  round: number;
  start: number;
  spent: number;
}

export interface TeamState {
  teamName: string;
  teamTricode: string;
  teamUrl: string;
  ingameTeamId: 0 | 1;
  isAttacking: boolean;
  hasHandledTeam: boolean;
  roundsWon: number;
  spentThisRound: number;
  roundRecord: RoundRecordEntry[];
  /** round 1 first; kept for supporter organisations only, [] otherwise (docs/match-rules.md 8.1) */
  moneyRecord: MoneyRecordEntry[];
  removeTricode: boolean;
  players: PlayerState[];
  playerCount: number;
  hasDuplicateAgents: boolean;
}

export interface SpikeState {
  planted: boolean;
  detonated: boolean;
  defused: boolean;
}

export interface TimeoutState {
  techPause: boolean;
  leftTeam: boolean;
  rightTeam: boolean;
  /** seconds */
  timeRemaining: number;
}

/** Initially the service default; after a toast, the received object as received plus `active`. */
export interface ToastInfo {
  active: boolean;
  title?: string;
  message?: string;
  duration?: number | null;
  eventLogoEnabled?: boolean;
  selectedTeam?: string;
  [extra: string]: unknown;
}

/** Client-supplied objects are passed through as received, so every tools member is open. */
export interface SeriesInfo {
  enable?: boolean;
  needed?: number | null;
  wonLeft?: number | null;
  wonRight?: number | null;
  seedingLeft?: string;
  seedingRight?: string;
  mapInfo: MapInfoEntry[];
  [extra: string]: unknown;
}

export interface MapInfoEntry {
  type: string;
  map?: string;
  logo?: string;
  left?: MapInfoSide;
  right?: MapInfoSide;
  [extra: string]: unknown;
}

export interface MapInfoSide {
  score?: number | null;
  logo?: string;
  [extra: string]: unknown;
}

export interface Tools {
  seriesInfo: SeriesInfo;
  seedingInfo: { left?: string; right?: string; [extra: string]: unknown };
  tournamentInfo: {
    name?: string;
    logoUrl?: string;
    backdropUrl?: string;
    enabled?: boolean;
    timeoutDuration?: number;
    showMappool?: boolean;
    [extra: string]: unknown;
  };
  /** seconds */
  timeoutDuration: number;
  timeoutCounter: { max: number; left: number; right: number; [extra: string]: unknown };
  /** seconds */
  timeoutCancellationGracePeriod: number;
  sponsorInfo: { enabled?: boolean; duration?: number; sponsors: string[]; [extra: string]: unknown };
  watermarkInfo: { spectraWatermark: boolean; customTextEnabled: boolean; customText?: string; [extra: string]: unknown };
  /** `secret` and `endTime` are moved out of here at creation (EngineCore.playercam). */
  playercamsInfo: {
    enable?: boolean;
    removeTricodes?: boolean;
    identifier?: string;
    enabledPlayers?: string[];
    [extra: string]: unknown;
  };
  /** `overrides`: JSON text of [fullName, displayName] pairs (the form the overlay reads). */
  nameOverrides: { overrides: string; [extra: string]: unknown };
  roundWinBox: { type: string; sponsors: RoundWinSponsor[]; [extra: string]: unknown };
  /** Service-owned (never taken from `toolsData`): not `toolsData.agentSelectHotkeyEnabled` (docs/match-rules.md 2.2, 4.17). */
  agentSelectAutostart: boolean;
  /** Service-owned: the overlay shows agent select while true (roster with autostart, `toggle_agent_select`). */
  agentSelectActive: boolean;
  [extra: string]: unknown;
}

export interface RoundWinSponsor {
  wonTeam?: string;
  roundCeremony?: string[];
  iconUrl?: string;
  backdropUrl?: string;
  roundCeremonie?: string[];
  [extra: string]: unknown;
}

/** The broadcast tree (docs/match-rules.md 16.2), key order included. */
export interface MatchState {
  matchId: string;
  matchType: string;
  switchRound: number;
  firstOtRound: number;
  groupCode: string;
  isRunning: boolean;
  agentSelectStartTime: number | undefined;
  roundNumber: number;
  roundPhase: string;
  roundTimeoutTime: number | undefined;
  wasTimeout: boolean;
  spikeDetonationTime: number | undefined;
  teams: [TeamState, TeamState];
  map: string;
  spikeState: SpikeState;
  attackersWon: boolean;
  showAliveKDA: boolean;
  timeoutState: TimeoutState;
  timeoutGracePeriodPassed: boolean;
  toastInfo: ToastInfo;
  hasEnteredOvertime: boolean;
  tools: Tools;
  organizationId: string;
  isRegistered: boolean;
  orgIsSupporter: boolean;
}

/** One broadcast frame: the state plus the serialization time (not engine state; see serialize.ts). */
export type MatchData = MatchState & { serverTime: number };

// ---------------------------------------------------------------------------------------------
// Engine contract types

export interface AuthTeam {
  name: string;
  tricode: string;
  url: string;
  attackStart: boolean;
}

export interface MatchLogon {
  groupCode: string;
  leftTeam: AuthTeam;
  rightTeam: AuthTeam;
  toolsData?: unknown;
  /** '' unless the backend gave one */
  organizationId: string;
  /** false for local-shortcut keys */
  isSupporter: boolean;
}

export interface EngineSettings {
  /** appended to the sponsors of non-supporters (docs/match-rules.md 2.2 step 5) */
  sponsorLogoUrl: string;
}

export type ApplyResult = { ok: true } | { ok: false; reason: RejectReason; detail?: string };

export type RejectReason =
  | 'invalid_json' // a string payload that is not JSON
  | 'invalid_envelope' // no string `type` / no `data` / missing groupCode, or matchId+playerId for aux_*
  | 'invalid_data' // `data` does not match the type's schema
  | 'round_out_of_range' // round_info with roundNumber outside 1..99 (or not an integer)
  | 'unknown_sender' // aux_scoreboard_team whose sending player is in no team
  | 'not_aux_type' // applyAux() (an auxiliary session) with a type that is not one of docs/match-rules.md 5
  | 'player_mismatch' // applyAux() with an envelope playerId that is not the session's player
  | 'match_ended'; // game_end was applied; the match only waits for its final frame

export type EngineEffect =
  /** at match_start; the shell decides whether a backend is configured, then calls setRegistered(true) */
  | { kind: 'register'; matchId: string }
  /** shopping phase from round 2 on, when isRegistered; body: registerBody() */
  | { kind: 'update'; matchId: string }
  /** at game_end when isRegistered: send after the final frame; body: registerBody() */
  | { kind: 'complete'; matchId: string }
  /** statistics backend, supporter orgs only: addMatch {code, matchUuid} */
  | { kind: 'stats_add'; groupCode: string; matchId: string }
  /** statistics backend, supporter orgs only: updateMatchRegion {matchUuid, accountPuuid} */
  | { kind: 'stats_region'; matchId: string; playerId: string }
  /** statistics backend, supporter orgs only: fetchMatchStats {matchUuid}, `delayMs` after the end */
  | { kind: 'stats_fetch'; matchId: string; delayMs: number }
  /** optional MMR lookup (supporter orgs only): answer with applyMmr() */
  | { kind: 'mmr_fetch'; matchId: string; playerIds: string[] }
  /** player-camera service; the secret is read from Match.playercamSecret, answer with applyPlayercams() */
  | { kind: 'playercam_fetch'; identifier: string }
  /** post-match team info (docs/match-rules.md 14.2 step 3), added to the group's team-info entry */
  | {
      kind: 'team_info_final';
      info: { higherScore: 0 | 1; tournamentInfo: unknown; sponsorInfo: unknown; isSupporter: boolean };
    }
  /** something the rules say to log (both teams with the same attackStart, a full team, ...) */
  | { kind: 'warn'; code: string; detail: string };

/** Pending timers as absolute times in ms; Infinity = not scheduled. */
export interface Timers {
  /** next timeout countdown tick */
  tickAt: number;
  /** team timeout end */
  timeoutEndAt: number;
  /** toast auto-off */
  toastOffAt: number;
}

/** Player-camera data kept outside the broadcast tree. */
export interface PlayercamData {
  secret: string;
  /** `toolsData.playercamsInfo.endTime` as received (not broadcast; kept for the backend record) */
  endTime: unknown;
  /** last accepted answer, kept raw so player ids can be mapped again when the roster grows */
  rawOverrides: Array<[string, string]> | null;
  rawEnabled: string[] | null;
}

/** Everything one match owns. The concern modules operate on this. */
export interface EngineCore {
  state: MatchState;
  /** the logon's team objects as received (backend record only) */
  logonTeams: { leftTeam: AuthTeam; rightTeam: AuthTeam };
  timers: Timers;
  playercam: PlayercamData;
  effects: EngineEffect[];
  stateVersion: number;
  /** `now` of the last stateVersion raise */
  lastChangeAt: number;
  ended: boolean;
}
