// `match_start` (docs/match-rules.md 4.5): the match id, and the backend calls it asks for (effects the
// shell performs), then the MMR lookup's answer (4.5 step 3).

import { playerInMatch } from './teams.js';
import type { EngineCore, MatchState } from './types.js';
import { touch } from './dirty.js';

export function applyMatchStart(core: EngineCore, matchId: string): void {
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

/**
 * The MMR answer's `results` `[{puuid, currentMMRTier, peakMMRTier}]`: each sets the tiers of the
 * player with that id (numbers or null; other values are ignored). True when a player was found.
 */
export function applyMmrResults(state: MatchState, results: unknown[]): boolean {
  let changed = false;
  for (const r of results as { puuid?: unknown; currentMMRTier?: unknown; peakMMRTier?: unknown }[]) {
    if (typeof r !== 'object' || r === null || typeof r.puuid !== 'string') continue;
    const player = playerInMatch(state, r.puuid);
    if (!player) continue;
    touch(player);
    if (isTier(r.currentMMRTier)) player.currentMMRTier = r.currentMMRTier;
    if (isTier(r.peakMMRTier)) player.peakMMRTier = r.peakMMRTier;
    changed = true;
  }
  return changed;
}

function isTier(v: unknown): v is number | null {
  return v === null || (typeof v === 'number' && Number.isFinite(v));
}
