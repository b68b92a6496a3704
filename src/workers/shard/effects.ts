// Effect translation: what the engine asks for (EngineEffect) becomes backend calls the main thread
// makes (BackendEffect, with the group code, match id and bodies it needs) or events (the engine's
// `team_info_final`, at game_end, becomes two: the backend's team info and the map's result).
import type { BackendEffect } from '../../protocol/shard-messages.js';
import type { OutputBuffer } from './output-buffer.js';
import type { Slot } from './slot.js';

/** Sends on the effects the slot's match requested since the last call. */
export function forwardEffects(slot: Slot, out: OutputBuffer): void {
  for (const effect of slot.match.takeEffects()) {
    const groupCode = slot.groupCode;
    const matchId = slot.match.matchId;
    let backend: BackendEffect | null = null;
    switch (effect.kind) {
      case 'register':
        backend = { kind: 'register', groupCode, matchId: effect.matchId || matchId, body: slot.match.registerBody() };
        break;
      case 'update':
        backend = { kind: 'update', groupCode, matchId, body: slot.match.registerBody() };
        break;
      case 'complete':
        // Sent by Shard.remove(), after the final frame is out (docs/match-rules.md 14.2 step 6).
        break;
      case 'stats_add':
        backend = { kind: 'stats_add', groupCode, matchId };
        break;
      case 'stats_fetch':
        backend = { kind: 'stats_fetch', groupCode, matchId, delayMs: effect.delayMs };
        break;
      case 'mmr_fetch':
        backend = { kind: 'mmr_fetch', groupCode, matchId, playerIds: effect.playerIds };
        break;
      case 'warn':
        out.log('warn', effect.detail, { groupCode, code: effect.code });
        break;
      case 'stats_region':
        backend = { kind: 'stats_region', groupCode, matchId, playerId: effect.playerId };
        break;
      case 'playercam_fetch':
        backend = { kind: 'playercam_fetch', groupCode, identifier: effect.identifier, secret: slot.match.playercamSecret };
        break;
      case 'team_info_final': {
        out.event({ t: 'team_info_final', groupCode, info: effect.info });
        const state = slot.match.liveState(); // the final score, for the series (main/schedule)
        out.event({ t: 'map_result', groupCode, map: state.map, scores: [state.teams[0].roundsWon, state.teams[1].roundsWon] });
        break;
      }
    }
    if (backend) out.event({ t: 'effect', effect: backend });
  }
}
