// The match engine: one Match per live group code. Pure: no I/O, no clock, no timers of its own.
// Time only comes from the `now` arguments (epoch ms, the service's receive time), so a replay with
// recorded timestamps is deterministic. Backend work is requested through effects (takeEffects()).
//
// Rules: ../shared/spec/match-rules.md. One file per concern:
//   tools.ts (creation, tools merge, supporter rules), teams.ts, players.ts (roster),
//   scoreboard.ts (rows, icon suffixes), killfeed.ts, rounds.ts (phases, records, side switch,
//   overtime, score, swaps, game end), spike.ts, timeouts.ts (team timeouts, tech pause),
//   toast.ts, aux.ts, playercams.ts, names.ts.

import {
  dataValidators,
  describeErrors,
  validateAuxEnvelope,
  validateAuxTeamRows,
  validateObserverEnvelope,
  type AbilitiesData,
  type AuxEnvelope,
  type KillfeedData,
  type ObserverEnvelope,
  type RosterData,
  type RoundInfoData,
  type ScoreData,
  type ScoreboardRow,
  type TeamRow,
  type ToastData,
} from '../../schemas/messages.js';
import {
  applyAstraTargeting,
  applyAuxAbilities,
  applyAuxHealth,
  applyAuxScoreboard,
  applyAuxScoreboardTeam,
  applyCypherCam,
  auxDisconnected,
  auxSessionRefusal,
} from './aux.js';
import { applyKillfeed } from './killfeed.js';
import { mapDisplay } from './names.js';
import { acceptPlayercams, playercamFetchEffect } from './playercams.js';
import { applyRoster } from './players.js';
import {
  applyGameMode,
  applyRoundInfo,
  applyScore,
  roundInRange,
  swapAttackerDefender,
  swapLeftRight,
} from './rounds.js';
import { applyScoreboard } from './scoreboard.js';
import { setPlanted, spikeDefused, spikeDetonated } from './spike.js';
import { assignIngameIds, createTeam, playerInMatch, teamOfPlayer } from './teams.js';
import { raise, timeoutEnd, timeoutTick, toggleTeamTimeout, toggleTechPause } from './timeouts.js';
import { toastExpired, toggleToast, initialToast } from './toast.js';
import { buildTools, DEFAULT_SPONSOR_LOGO_URL } from './tools.js';
import type {
  ApplyResult,
  CountMap,
  EngineCore,
  EngineEffect,
  EngineSettings,
  MatchLogon,
  MatchState,
  PlayercamData,
  TeamState,
} from './types.js';

export type {
  ApplyResult,
  AuthTeam,
  EngineEffect,
  EngineSettings,
  MatchLogon,
  MatchState,
  RejectReason,
} from './types.js';
export { DEFAULT_SPONSOR_LOGO_URL, auxSessionRefusal };

const OK: ApplyResult = { ok: true };

function reject(reason: Exclude<ApplyResult, { ok: true }>['reason'], detail?: string): ApplyResult {
  return detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };
}

type Envelope = ObserverEnvelope | AuxEnvelope;

export class Match {
  readonly groupCode: string;
  readonly #core: EngineCore;

  private constructor(core: EngineCore) {
    this.#core = core;
    this.groupCode = core.state.groupCode;
  }

  /** A new match for a successful first `obs_logon` (match-rules.md 2). */
  static create(logon: MatchLogon, now: number, settings: EngineSettings): Match {
    const effects: EngineEffect[] = [];
    const isSupporter = logon.isSupporter === true;
    const { tools, playercamSecret, playercamEndTime } = buildTools(
      logon.toolsData,
      isSupporter,
      settings.sponsorLogoUrl,
      effects,
    );
    const ids = assignIngameIds(logon.leftTeam, logon.rightTeam);
    if (ids.conflict) {
      effects.push({
        kind: 'warn',
        code: 'same_attack_start',
        detail: 'both teams have the same attackStart; left team set to ingameTeamId 0 (attacking), right to 1',
      });
    }
    const removeTricode = tools.playercamsInfo.removeTricodes === true;
    const teams: [TeamState, TeamState] = [
      createTeam(logon.leftTeam, ids.left, removeTricode),
      createTeam(logon.rightTeam, ids.right, removeTricode),
    ];

    // Key order = the match_data tree (16.2). Optional members are present as undefined.
    const state: MatchState = {
      matchId: '',
      matchType: 'bomb',
      switchRound: 13,
      firstOtRound: 25,
      groupCode: String(logon.groupCode),
      isRunning: false,
      agentSelectStartTime: undefined,
      roundNumber: 0,
      roundPhase: 'LOBBY',
      roundTimeoutTime: undefined,
      wasTimeout: false,
      spikeDetonationTime: undefined,
      teams,
      map: 'Loading',
      spikeState: { planted: false, detonated: false, defused: false },
      attackersWon: false,
      showAliveKDA: false,
      timeoutState: { techPause: false, leftTeam: false, rightTeam: false, timeRemaining: 0 },
      timeoutGracePeriodPassed: false,
      toastInfo: initialToast(),
      hasEnteredOvertime: false,
      tools,
      organizationId: typeof logon.organizationId === 'string' ? logon.organizationId : '',
      isRegistered: false,
      orgIsSupporter: isSupporter,
    };

    const core: EngineCore = {
      state,
      logonTeams: copyJson({ leftTeam: logon.leftTeam, rightTeam: logon.rightTeam }),
      timers: { tickAt: Infinity, timeoutEndAt: Infinity, toastOffAt: Infinity },
      playercam: { secret: playercamSecret, endTime: playercamEndTime, rawOverrides: null, rawEnabled: null },
      effects,
      // One above the shell's "last sent" marker (0), so the lobby state goes out at the first cycle.
      eventNumber: 1,
      lastChangeAt: now,
      ended: false,
    };
    const cams = playercamFetchEffect(core);
    if (cams) effects.push(cams);
    return new Match(core);
  }

  get matchId(): string {
    return this.#core.state.matchId;
  }

  /** Raised by every accepted message and every timer/async result that changes state (section 13). */
  get eventNumber(): number {
    return this.#core.eventNumber;
  }

  /** The `now` of the last eventNumber raise (creation time before any). */
  get lastChangeAt(): number {
    return this.#core.lastChangeAt;
  }

  /** When advance() next has work (epoch ms), or null when no timer is pending. */
  get nextTimerAt(): number | null {
    const t = this.#core.timers;
    const next = Math.min(t.tickAt, t.timeoutEndAt, t.toastOffAt);
    return next === Infinity ? null : next;
  }

  get isRegistered(): boolean {
    return this.#core.state.isRegistered;
  }

  /** game_end was applied: send the final frame, then remove the match. */
  get ended(): boolean {
    return this.#core.ended;
  }

  /** For the shell's player-camera fetch only; never broadcast, never in effects. */
  get playercamSecret(): string {
    return this.#core.playercam.secret;
  }

  /**
   * One envelope of this match's observer (`obs_data`; a parsed object, or a JSON string). Every type
   * applies: the observer owns its match. `aux_*` records (replay files, clients.md 3.1) need the
   * auxiliary envelope (`matchId`, `playerId`, which name nothing here: they apply to this match),
   * all others the observer envelope (`groupCode`); the caller has already routed it (the group
   * code check is the shell's). Runs due timers first, validates everything before changing
   * anything, and raises eventNumber once per accepted message (also for unknown types, which
   * change nothing).
   */
  apply(envelope: unknown, now: number): ApplyResult {
    return this.#accept(envelope, now, null);
  }

  /**
   * One envelope of an auxiliary session (`aux_data`) whose player is `sessionPlayerId`: the only way
   * auxiliary-session data reaches a match. Only the auxiliary rules apply (auxSessionRefusal:
   * `not_aux_type`, `player_mismatch`); otherwise like apply(). The match id routing is the shell's.
   */
  applyAux(envelope: unknown, sessionPlayerId: string, now: number): ApplyResult {
    return this.#accept(envelope, now, sessionPlayerId);
  }

  /** Runs every timer due up to `now`, in time order (timeout end before a tick due at the same time). */
  advance(now: number): void {
    const core = this.#core;
    const t = core.timers;
    for (;;) {
      const end = t.timeoutEndAt;
      const tick = t.tickAt;
      const toast = t.toastOffAt;
      const next = Math.min(end, tick, toast);
      if (!(next <= now)) return;
      if (end === next) timeoutEnd(core, end);
      else if (tick === next) timeoutTick(core, tick);
      else toastExpired(core, toast);
    }
  }

  /** An auxiliary socket with this player id disconnected (section 5). */
  auxDisconnected(playerId: string, now: number): void {
    this.advance(now);
    if (auxDisconnected(this.#core.state, playerId)) raise(this.#core, now);
  }

  /**
   * The player-camera service's answer (interface-spec 4.8; see playercams.ts for the accepted
   * forms). Returns false and changes nothing for an invalid answer.
   */
  applyPlayercams(result: unknown, now: number): boolean {
    if (this.#core.ended) return false;
    this.advance(now);
    if (!acceptPlayercams(this.#core, result)) return false;
    raise(this.#core, now);
    return true;
  }

  /**
   * The optional MMR lookup's answer `{results: [{puuid, currentMMRTier, peakMMRTier}]}`: each result
   * sets the tiers of the player with that id (numbers or null; other values are ignored).
   */
  applyMmr(result: unknown, now: number): boolean {
    if (this.#core.ended) return false;
    const results = (result as { results?: unknown } | null)?.results;
    if (!Array.isArray(results)) return false;
    this.advance(now);
    const state = this.#core.state;
    let changed = false;
    for (const r of results) {
      if (typeof r !== 'object' || r === null || typeof r.puuid !== 'string') continue;
      const player = playerInMatch(state, r.puuid);
      if (!player) continue;
      if (isTier(r.currentMMRTier)) player.currentMMRTier = r.currentMMRTier;
      if (isTier(r.peakMMRTier)) player.peakMMRTier = r.peakMMRTier;
      changed = true;
    }
    if (changed) raise(this.#core, now);
    return true;
  }

  /**
   * The match is over without `game_end`: operator force-end, inactivity removal, shutdown without
   * STATE_DIR. Only `isRunning` becomes false, so that its last frame says it ended; nothing else
   * changes (no `game_end` phase, no round record, no post-match team info: match-rules.md 14.2
   * belongs to `game_end`). Raises eventNumber when that changed anything.
   */
  stopRunning(now: number): void {
    const state = this.#core.state;
    if (!state.isRunning) return;
    state.isRunning = false;
    raise(this.#core, now);
  }

  /** The register call completed (any HTTP status): true. A network failure leaves it false. */
  setRegistered(registered: boolean): void {
    const state = this.#core.state;
    if (state.isRegistered === registered) return;
    state.isRegistered = registered;
    raise(this.#core, this.#core.lastChangeAt);
  }

  /** Effects requested since the last call, in order. Plain JSON data. */
  takeEffects(): EngineEffect[] {
    const effects = this.#core.effects;
    if (effects.length === 0) return [];
    this.#core.effects = [];
    return effects;
  }

  /**
   * The broadcast tree (match_data). A live view, not a copy: serialize it (serializeMatch or
   * JSON.stringify) before the next call that changes the match, and never mutate it. It holds no
   * internal members and no secrets; unset optional members are `undefined` (omitted by both
   * serializers).
   */
  snapshot(): MatchState {
    return this.#core.state;
  }

  /**
   * Body of the backend register/update/complete calls (interface-spec 4.8): `{match: record}`, where
   * the record is the broadcast tree plus the logon's `leftTeam`/`rightTeam` and
   * `tools.playercamsInfo.endTime`; without eventNumber, timers, the group secret (never held here)
   * and the player-camera secret. A fresh top level over shared subtrees: serialize it at once.
   */
  registerBody(): { match: Record<string, unknown> } {
    const core = this.#core;
    const s = core.state;
    const cams: Record<string, unknown> = { ...s.tools.playercamsInfo };
    if (core.playercam.endTime !== undefined) cams.endTime = core.playercam.endTime;
    return {
      match: {
        ...s,
        tools: { ...s.tools, playercamsInfo: cams },
        leftTeam: core.logonTeams.leftTeam,
        rightTeam: core.logonTeams.rightTeam,
      },
    };
  }

  /**
   * Everything the match owns as JSON text, for crash recovery and STATE_DIR (restoreSnapshot).
   * Without the player-camera secret: the caller keeps it apart (never on disk). Pending effects
   * are not included (the shard drains them after every call).
   */
  toSnapshot(): string {
    const core = this.#core;
    const t = core.timers;
    const fin = (n: number) => (n === Infinity ? null : n);
    return JSON.stringify({
      v: SNAPSHOT_VERSION,
      state: core.state,
      logonTeams: core.logonTeams,
      timers: [fin(t.tickAt), fin(t.timeoutEndAt), fin(t.toastOffAt)],
      playercam: { endTime: core.playercam.endTime, rawOverrides: core.playercam.rawOverrides, rawEnabled: core.playercam.rawEnabled },
      eventNumber: core.eventNumber,
      lastChangeAt: core.lastChangeAt,
      ended: core.ended,
    });
  }

  /** A match from toSnapshot()'s text; `playercamSecret` as kept by the caller ('' = none). Throws on a malformed snapshot. */
  static fromSnapshot(text: string, playercamSecret = ''): Match {
    const snap = JSON.parse(text) as {
      v: number; state: MatchState; logonTeams: EngineCore['logonTeams']; timers: (number | null)[];
      playercam: { endTime: unknown; rawOverrides: PlayercamData['rawOverrides']; rawEnabled: PlayercamData['rawEnabled'] };
      eventNumber: number; lastChangeAt: number; ended: boolean;
    };
    if (snap?.v !== SNAPSHOT_VERSION || typeof snap.state?.groupCode !== 'string' || !Array.isArray(snap.state.teams)) {
      throw new Error('not a match snapshot of this version');
    }
    const inf = (n: number | null | undefined) => (typeof n === 'number' ? n : Infinity);
    // Per-name counters are null-prototype objects (any received name is a plain key).
    for (const team of snap.state.teams) {
      for (const p of team.players) {
        p.killsByWeaponsAndAbilities = nullProto(p.killsByWeaponsAndAbilities);
        p.killsOnEnemyPlayer = nullProto(p.killsOnEnemyPlayer);
        p.killsOnTeammatePlayer = nullProto(p.killsOnTeammatePlayer);
        p.assistsFromTeammate = nullProto(p.assistsFromTeammate);
      }
    }
    const core: EngineCore = {
      state: snap.state,
      logonTeams: snap.logonTeams,
      timers: { tickAt: inf(snap.timers[0]), timeoutEndAt: inf(snap.timers[1]), toastOffAt: inf(snap.timers[2]) },
      playercam: { secret: playercamSecret, endTime: snap.playercam.endTime, rawOverrides: snap.playercam.rawOverrides, rawEnabled: snap.playercam.rawEnabled },
      effects: [],
      eventNumber: snap.eventNumber,
      lastChangeAt: snap.lastChangeAt,
      ended: snap.ended,
    };
    return new Match(core);
  }

  // -------------------------------------------------------------------------------------------

  /** `auxSession`: the auxiliary session's player id, or null for observer data. */
  #accept(input: unknown, now: number, auxSession: string | null): ApplyResult {
    let envelope = input;
    if (typeof envelope === 'string') {
      try {
        envelope = JSON.parse(envelope);
      } catch {
        return reject('invalid_json');
      }
    }
    const fields = typeof envelope === 'object' && envelope !== null ? (envelope as { type?: unknown; playerId?: unknown }) : undefined;
    const type = fields?.type;
    if (auxSession !== null) {
      const refusal = auxSessionRefusal(type, fields?.playerId, auxSession);
      if (refusal) return reject(refusal, typeof type === 'string' ? type : undefined);
    }
    if (typeof type !== 'string') return reject('invalid_envelope', 'type must be a string');
    const isAux = type.startsWith('aux_');
    if (isAux) {
      if (!validateAuxEnvelope(envelope)) return reject('invalid_envelope', describeErrors(validateAuxEnvelope.errors));
    } else if (!validateObserverEnvelope(envelope)) {
      return reject('invalid_envelope', describeErrors(validateObserverEnvelope.errors));
    }
    // An auxiliary session's scoreboard row is its own (the aux-observer mode that sends every row
    // runs on a spectator, who cannot log on: docs/reliability.md), so it cannot rewrite another player's row.
    if (auxSession !== null && type === 'aux_scoreboard') {
      const row = (envelope as Envelope).data as { playerId?: unknown } | null;
      if (typeof row !== 'object' || row === null || row.playerId !== auxSession) return reject('player_mismatch', type);
    }
    if (this.#core.ended) return reject('match_ended');
    this.advance(now);
    return this.#dispatch(envelope as Envelope, type, now);
  }

  #dispatch(env: Envelope, type: string, now: number): ApplyResult {
    const core = this.#core;
    const state = core.state;
    const data = env.data;

    // 1. Validate everything first.
    const validate = dataValidators.get(type);
    if (validate !== undefined && !validate(data)) return reject('invalid_data', describeErrors(validate.errors));
    let auxRows: TeamRow[] | undefined;
    let auxTeam: TeamState | undefined;
    if (type === 'round_info') {
      const n = (data as RoundInfoData).roundNumber;
      if (!roundInRange(n)) return reject('round_out_of_range', String(n));
    } else if (type === 'aux_scoreboard_team') {
      let rows: unknown = data;
      if (typeof rows === 'string') {
        try {
          rows = JSON.parse(rows);
        } catch {
          return reject('invalid_data', 'aux_scoreboard_team: data is not JSON');
        }
      }
      if (!validateAuxTeamRows(rows)) return reject('invalid_data', describeErrors(validateAuxTeamRows.errors));
      auxTeam = teamOfPlayer(state, (env as AuxEnvelope).playerId);
      if (!auxTeam) return reject('unknown_sender', (env as AuxEnvelope).playerId);
      auxRows = rows;
    }

    // 2. Apply.
    switch (type) {
      case 'scoreboard':
        applyScoreboard(state, data as ScoreboardRow, now);
        break;
      case 'killfeed':
        applyKillfeed(state, data as KillfeedData);
        break;
      case 'roster':
        applyRoster(core, data as RosterData, now);
        break;
      case 'observing':
        for (const team of state.teams) for (const p of team.players) p.isObserved = p.searchName === data;
        break;
      case 'match_start':
        this.#matchStart(data as string);
        break;
      case 'map':
        state.map = mapDisplay(data as string);
        break;
      case 'game_mode':
        applyGameMode(state, data as string);
        break;
      case 'round_info':
        applyRoundInfo(core, data as RoundInfoData, now);
        break;
      case 'score':
        applyScore(state, data as ScoreData, now);
        break;
      case 'spike_planted':
        setPlanted(state, now);
        break;
      case 'spike_detonated':
        spikeDetonated(state);
        break;
      case 'spike_defused':
        spikeDefused(state);
        break;
      case 'tech_pause':
        toggleTechPause(core);
        break;
      case 'left_timeout':
        toggleTeamTimeout(core, 'left', now);
        break;
      case 'right_timeout':
        toggleTeamTimeout(core, 'right', now);
        break;
      case 'switch_kda_credits':
        state.showAliveKDA = !state.showAliveKDA;
        break;
      case 'toast':
        toggleToast(core, data as ToastData, now);
        break;
      case 'swap_left_right':
        swapLeftRight(state);
        break;
      case 'swap_attacker_defender':
        swapAttackerDefender(state);
        break;
      case 'aux_scoreboard':
        applyAuxScoreboard(state, data as ScoreboardRow, now);
        break;
      case 'aux_scoreboard_team':
        applyAuxScoreboardTeam(state, auxTeam!, auxRows!, now);
        break;
      case 'aux_health':
        applyAuxHealth(state, (env as AuxEnvelope).playerId, data as number);
        break;
      case 'aux_abilities':
        applyAuxAbilities(state, (env as AuxEnvelope).playerId, data as AbilitiesData);
        break;
      case 'aux_astra_targeting':
        applyAstraTargeting(state, (env as AuxEnvelope).playerId, data as boolean);
        break;
      case 'aux_cypher_cam':
        applyCypherCam(state, (env as AuxEnvelope).playerId, data as boolean);
        break;
      default:
        break; // team_is_attacker and unknown types: accepted, no change
    }

    // 3. Every accepted message raises eventNumber.
    raise(core, now);
    return OK;
  }

  /** `match_start` (4.5): the shell performs the backend calls the effects ask for. */
  #matchStart(matchId: string): void {
    const core = this.#core;
    const state = core.state;
    state.matchId = matchId;
    state.isRunning = true;
    core.effects.push({ kind: 'register', matchId });
    if (!state.orgIsSupporter) return;
    core.effects.push({ kind: 'stats_add', groupCode: state.groupCode, matchId });
    const first = state.teams[0].players[0];
    if (first) core.effects.push({ kind: 'stats_region', matchId, playerId: first.riotId });
    const playerIds: string[] = [];
    for (const team of state.teams) for (const p of team.players) playerIds.push(p.riotId);
    core.effects.push({ kind: 'mmr_fetch', matchId, playerIds });
  }
}

function isTier(v: unknown): v is number | null {
  return v === null || (typeof v === 'number' && Number.isFinite(v));
}

const SNAPSHOT_VERSION = 1;

function nullProto(source: CountMap | undefined): CountMap {
  const out = Object.create(null) as CountMap;
  if (source) for (const k of Object.keys(source)) out[k] = source[k];
  return out;
}

function copyJson<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}
