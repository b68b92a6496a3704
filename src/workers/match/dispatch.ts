// One envelope into the engine (docs/match-rules.md 3): time passes first (the timers due by the
// message's time fire, whether or not it is accepted), then the envelope is validated completely,
// then the rule of its type applies, and every accepted message raises stateVersion (13).

import { dataValidators, describeErrors, validateAuxEnvelope, validateAuxTeamRows, validateObserverEnvelope } from '../../schemas/checks.js';
import {
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
  auxSessionRefusal,
} from './aux.js';
import { toggleAgentSelect } from './agent-select.js';
import { applyKillfeed } from './killfeed.js';
import { applyMatchStart } from './match-start.js';
import { mapDisplay } from './names.js';
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
import { teamOfPlayer } from './teams.js';
import { advanceTimers } from './timers.js';
import { raise, toggleTeamTimeout, toggleTechPause } from './timeouts.js';
import { toggleToast } from './toast.js';
import type { ApplyResult, EngineCore, TeamState } from './types.js';
import { touch } from './dirty.js';

const OK: ApplyResult = { ok: true };

function reject(reason: Exclude<ApplyResult, { ok: true }>['reason'], detail?: string): ApplyResult {
  return detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };
}

type Envelope = ObserverEnvelope | AuxEnvelope;

/**
 * One envelope (a parsed object, or JSON text) at `now`. `auxSession`: the auxiliary session's
 * player id (only the auxiliary rules apply), or null for the observer's data.
 */
export function acceptEnvelope(core: EngineCore, input: unknown, now: number, auxSession: string | null): ApplyResult {
  // The one place a message moves the engine's time: callers do not advance() before apply(). An
  // ended match's time stands still: it only waits for its last frame.
  if (!core.ended) advanceTimers(core, now);
  let envelope = input;
  if (typeof envelope === 'string') {
    try {
      envelope = JSON.parse(envelope);
    } catch {
      return reject('invalid_json');
    }
  }
  const fields = typeof envelope === 'object' && envelope !== null ? (envelope as { type?: unknown; playerId?: unknown; data?: unknown }) : undefined;
  const type = fields?.type;
  if (auxSession !== null) {
    const refusal = auxSessionRefusal(type, fields?.playerId, auxSession, fields?.data);
    if (refusal) return reject(refusal, typeof type === 'string' ? type : undefined);
  }
  if (typeof type !== 'string') return reject('invalid_envelope', 'type must be a string');
  const isAux = type.startsWith('aux_');
  if (isAux) {
    if (!validateAuxEnvelope(envelope)) return reject('invalid_envelope', describeErrors(validateAuxEnvelope.errors));
  } else if (!validateObserverEnvelope(envelope)) {
    return reject('invalid_envelope', describeErrors(validateObserverEnvelope.errors));
  }
  if (core.ended) return reject('match_ended');
  return dispatch(core, envelope as Envelope, type, now);
}

function dispatch(core: EngineCore, env: Envelope, type: string, now: number): ApplyResult {
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
      for (const team of state.teams) {
        for (const p of team.players) {
          const observed = p.searchName === data;
          if (p.isObserved !== observed) touch(p);
          p.isObserved = observed;
        }
      }
      break;
    case 'match_start':
      applyMatchStart(core, data as string);
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
    case 'toggle_agent_select':
      toggleAgentSelect(state);
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

  // 3. Every accepted message raises stateVersion.
  raise(core, now);
  return OK;
}
