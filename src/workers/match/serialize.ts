// The match_data serializer: fast-json-stringify built once from the broadcast schema.
// Same output as JSON.stringify(match.snapshot()) up to key order inside open objects (guarded by
// test/engine-serialize.test.ts, which round-trips every state of the recorded match).

import { build } from 'fast-json-stringify';
import { matchDataSchema } from '../../schemas/match-data.js';
import type { Match } from './match.js';
import type { MatchState } from './types.js';

const stringify = build(matchDataSchema) as (state: MatchState) => string;

/** The `match_data` payload (a JSON string) of the match's current state. */
export function serializeMatch(m: Match): string {
  return stringify(m.snapshot());
}

