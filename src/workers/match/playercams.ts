// Player cameras and name overrides (docs/match-rules.md 2.5, docs/interface.md 4.8).
//
// The player-camera service is specified to answer `{nameOverrides: {<playerId>: <name>},
// enabledPlayers: [<playerId>]}`, while the overlay reads `tools.nameOverrides.overrides` as JSON
// text of `[fullName, displayName]` pairs and compares `enabledPlayers` with full names. Both forms
// are accepted:
//   nameOverrides: an object keyed by player id (or full name), an array of pairs, or JSON text of
//                  either;
//   enabledPlayers: an array of player ids or full names.
// Keys that are player ids of the roster are mapped to those players' `fullName`; anything else is
// kept as received. The answer is kept raw and mapped again whenever a player joins, because the
// first fetch (at creation) happens before the roster is known.

import { playerInMatch } from './teams.js';
import type { EngineCore, EngineEffect } from './types.js';
import { touch } from './dirty.js';

/** The fetch effect, when the match has an identifier and a secret (the shell checks the backend config). */
export function playercamFetchEffect(core: EngineCore): EngineEffect | undefined {
  const identifier = core.state.tools.playercamsInfo.identifier;
  if (typeof identifier !== 'string' || identifier === '' || core.playercam.secret === '') return undefined;
  return { kind: 'playercam_fetch', identifier };
}

function pairsFrom(value: unknown): Array<[string, string]> | undefined {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return undefined;
    }
  }
  const pairs: Array<[string, string]> = [];
  if (Array.isArray(v)) {
    for (const pair of v) {
      if (Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string') {
        pairs.push([pair[0], pair[1]]);
      }
    }
    return pairs;
  }
  if (typeof v === 'object' && v !== null) {
    for (const [key, name] of Object.entries(v)) if (typeof name === 'string') pairs.push([key, name]);
    return pairs;
  }
  return undefined;
}

/**
 * Applies an answer of the player-camera service. Returns false (and changes nothing) when the
 * answer lacks either member or has the wrong shape ("treated as invalid", docs/interface.md 4.8).
 */
export function acceptPlayercams(core: EngineCore, result: unknown): boolean {
  if (typeof result !== 'object' || result === null) return false;
  const r = result as Record<string, unknown>;
  if (!('nameOverrides' in r) || !Array.isArray(r.enabledPlayers)) return false;
  const pairs = pairsFrom(r.nameOverrides);
  if (!pairs) return false;
  core.playercam.rawOverrides = pairs;
  core.playercam.rawEnabled = r.enabledPlayers.filter((p): p is string => typeof p === 'string');
  remapPlayercams(core);
  return true;
}

/** Writes the overlay's form of the last answer into `tools` (no-op before the first answer). */
export function remapPlayercams(core: EngineCore): void {
  const { rawOverrides, rawEnabled } = core.playercam;
  if (rawOverrides === null || rawEnabled === null) return;
  const state = core.state;
  const full = (key: string): string => playerInMatch(state, key)?.fullName ?? key;
  touch(state.tools);
  state.tools.nameOverrides.overrides = JSON.stringify(rawOverrides.map(([key, name]) => [full(key), name]));
  state.tools.playercamsInfo.enabledPlayers = rawEnabled.map(full);
}
