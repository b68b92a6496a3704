// The match_data serializer of FRAME_SERIALIZER=json: fast-json-stringify built once from the broadcast schema.
// Same output as JSON.stringify({ ...match.liveState(), serverTime }) up to key order inside open
// objects (guarded by test/workers/match/engine-serialize.test.ts, which round-trips every state of the recorded
// match).

import { createRequire } from 'node:module';
import type { build as Build } from 'fast-json-stringify';
import { matchDataSchema } from '../../schemas/match-data.js';
import type { Match } from './match.js';
import type { MatchData } from './types.js';

// Loaded on first use: the default serializer is the one-pass wire serializer, and importing
// fast-json-stringify (with its own ajv, formats and ref resolver) and building it cost every shard
// thread ~90 ms of CPU at start (docs/benchmarks.md, "The test suite's time"). A CommonJS package,
// so `require` loads it synchronously where the frame is made.
const require = createRequire(import.meta.url);
let stringify: ((frame: MatchData) => string) | undefined;

/**
 * The `match_data` payload (a JSON string) of the match's current state. `serverTime` is the
 * frame's serialization time (epoch ms; the shard passes the match clock's time under
 * TRUST_REPLAY_TIMESTAMPS); it is not engine state, so it joins a shallow copy of the top level.
 */
export function serializeMatch(m: Match, serverTime: number = Date.now()): string {
  stringify ??= (require('fast-json-stringify') as { build: typeof Build }).build(matchDataSchema) as (frame: MatchData) => string;
  return stringify({ ...m.liveState(), serverTime });
}
