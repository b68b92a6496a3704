// The engine core as JSON text and back, for crash recovery and STATE_DIR (docs/reliability.md).
// Without the player-camera secret, which the caller keeps apart (never on disk), and without
// pending effects (the shard drains them after every call). The economy record and the agent-select
// flags are state like any other; a snapshot written before they existed gets their initial values.

import type { CountMap, EngineCore, MatchState, PlayercamData } from './types.js';
import { NO_COUNTS } from './players.js';

const SNAPSHOT_VERSION = 1;
/**
 * The same snapshot with the state as the frame that shows it (docs/benchmarks.md, issue 20):
 * `"frame"` is a JSON string whose value is the frame's JSON text (the state plus serverTime), i.e.
 * the string argument of the frame's match_data message as it is: the shard copies it from the
 * frame without unescaping 16 kB per match every second; the reader parses it once more.
 */
const FRAME_SNAPSHOT_VERSION = 2;

/**
 * The state's text when the caller has it already: its JSON (version 1), or the string literal of
 * a frame of it (version 2: `42["match_data",<literal>]`, serverTime ignored); without it the state
 * is JSON.stringify'd here (version 1).
 */
export type SnapshotState = { json: string } | { frameLiteral: string };

export function coreToSnapshot(core: EngineCore, from?: SnapshotState): string {
  const t = core.timers;
  const fin = (n: number) => (n === Infinity ? null : n);
  const playercam = { endTime: core.playercam.endTime, rawOverrides: core.playercam.rawOverrides, rawEnabled: core.playercam.rawEnabled };
  const head = from !== undefined && 'frameLiteral' in from
    ? '{"v":' + FRAME_SNAPSHOT_VERSION + ',"frame":' + from.frameLiteral
    : '{"v":' + SNAPSHOT_VERSION + ',"state":' + (from?.json ?? JSON.stringify(core.state));
  // Written as JSON.stringify writes the object {v, state | frame, logonTeams, timers, playercam, eventNumber, lastChangeAt, ended}
  // (`eventNumber`: the state version, under the name snapshots have always had).
  return head +
    ',"logonTeams":' + json(core.logonTeams) + ',"timers":' + JSON.stringify([fin(t.tickAt), fin(t.timeoutEndAt), fin(t.toastOffAt)]) +
    ',"playercam":' + JSON.stringify(playercam) + ',"eventNumber":' + json(core.stateVersion) +
    ',"lastChangeAt":' + json(core.lastChangeAt) + ',"ended":' + json(core.ended) + '}';
}

/** A member's value as JSON.stringify writes it inside an object (an undefined one as null: still a valid snapshot). */
function json(v: unknown): string {
  return JSON.stringify(v) ?? 'null';
}

/** The core from coreToSnapshot()'s text; `playercamSecret` as kept by the caller ('' = none). Throws on a malformed snapshot. */
export function coreFromSnapshot(text: string, playercamSecret: string): EngineCore {
  const snap = JSON.parse(text) as {
    v: number; state: MatchState; logonTeams: EngineCore['logonTeams']; timers: (number | null)[];
    playercam: { endTime: unknown; rawOverrides: PlayercamData['rawOverrides']; rawEnabled: PlayercamData['rawEnabled'] };
    eventNumber: number; lastChangeAt: number; ended: boolean;
  };
  if (snap?.v === FRAME_SNAPSHOT_VERSION) snap.state = stateOfFrame((snap as { frame?: unknown }).frame);
  else if (snap?.v !== SNAPSHOT_VERSION) throw new Error('not a match snapshot of this version');
  if (typeof snap.state?.groupCode !== 'string' || !Array.isArray(snap.state.teams)) {
    throw new Error('not a match snapshot of this version');
  }
  const inf = (n: number | null | undefined) => (typeof n === 'number' ? n : Infinity);
  // Per-name counters are null-prototype objects (any received name is a plain key), NO_COUNTS when empty.
  for (const team of snap.state.teams) {
    if (!Array.isArray(team.moneyRecord)) team.moneyRecord = [];
    for (const p of team.players) {
      p.killsByWeaponsAndAbilities = nullProto(p.killsByWeaponsAndAbilities);
      p.killsOnEnemyPlayer = nullProto(p.killsOnEnemyPlayer);
      p.killsOnTeammatePlayer = nullProto(p.killsOnTeammatePlayer);
      p.assistsFromTeammate = nullProto(p.assistsFromTeammate);
    }
  }
  const tools = snap.state.tools;
  if (typeof tools.agentSelectAutostart !== 'boolean') tools.agentSelectAutostart = true;
  if (typeof tools.agentSelectActive !== 'boolean') tools.agentSelectActive = false;
  return {
    state: snap.state,
    logonTeams: snap.logonTeams,
    timers: { tickAt: inf(snap.timers[0]), timeoutEndAt: inf(snap.timers[1]), toastOffAt: inf(snap.timers[2]) },
    playercam: { secret: playercamSecret, endTime: snap.playercam.endTime, rawOverrides: snap.playercam.rawOverrides, rawEnabled: snap.playercam.rawEnabled },
    effects: [],
    stateVersion: snap.eventNumber,
    lastChangeAt: snap.lastChangeAt,
    ended: snap.ended,
  };
}

/** The state a version 2 snapshot's frame text shows: the frame's JSON without serverTime. */
function stateOfFrame(frame: unknown): MatchState {
  if (typeof frame !== 'string') throw new Error('not a match snapshot of this version');
  const state = JSON.parse(frame) as MatchState & { serverTime?: number };
  delete state.serverTime;
  return state;
}

/** A counter map as the engine keeps it: NO_COUNTS when empty, else a null-prototype copy. */
function nullProto(source: CountMap | undefined): CountMap {
  if (!source || Object.keys(source).length === 0) return NO_COUNTS;
  const out = Object.create(null) as CountMap;
  if (source) for (const k of Object.keys(source)) out[k] = source[k];
  return out;
}
