// The match_data serializer: fast-json-stringify built once from the broadcast schema.
// Same output as JSON.stringify({ ...match.liveState(), serverTime }) up to key order inside open
// objects (guarded by test/workers/match/engine-serialize.test.ts, which round-trips every state of the recorded
// match).

import { build } from 'fast-json-stringify';
import { matchDataSchema } from '../../schemas/match-data.js';
import type { Match } from './match.js';
import type { MatchData } from './types.js';

const stringify = build(matchDataSchema) as (frame: MatchData) => string;

/**
 * The `match_data` payload (a JSON string) of the match's current state. `serverTime` is the
 * frame's serialization time (epoch ms; the shard passes the match clock's time under
 * TRUST_REPLAY_TIMESTAMPS); it is not engine state, so it joins a shallow copy of the top level.
 */
export function serializeMatch(m: Match, serverTime: number = Date.now()): string {
  return stringify({ ...m.liveState(), serverTime });
}
