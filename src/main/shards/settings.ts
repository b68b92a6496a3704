// The shard threads' settings (shards/pool.ts): how many, how payloads travel to them, their memory.
import os from 'node:os';
import { bool, int, part, s } from '../base/settings-kit.js';

const defaultShards = Math.max(1, Math.min(4, os.availableParallelism() - 1));

export const SHARD_SETTINGS = part('shards', 'Shard threads', {
  SHARD_WORKERS: s(int(0, 64), defaultShards, `match shard worker threads (default: cores − 1, 1–4; here ${defaultShards}); 0: one shard on the main thread (no thread hand-offs; an exception in it restarts it from its snapshots as a thread's would)`),
  SHARD_BATCH_MS: s(int(0, 20), 2, 'how long ingested payloads wait to travel to their shard thread in one message (0: next event-loop turn). Unset with SHARD_WORKERS=0: 0 (no hand-off to amortize)'),
  SHARD_YOUNG_GENERATION_MB: s(int(0, 1024), 0, "each shard thread's V8 young generation in MB (the Worker's resourceLimits.maxYoungGenerationSizeMb; its new space is two thirds of it); 0: V8's default (48 on the 64-bit hosts measured). A cap bounds the new space a burst grows, committed until V8's memory reducer runs, but costs CPU at game pace (12: ~+15 % per frame; docs/perf/memory.md)"),
  SHARD_WARMUP: s(bool, true, 'each shard thread, at the pool\'s start, plays the recorded match through a shard of its own that nothing reads before its first command (~0.6 s of the thread on the machine measured; a restarted thread does not), so V8 has compiled the engine\'s, the frames\' and the deltas\' paths when real traffic comes: the first minutes after a start cost ~10 % less CPU a frame (docs/perf/message-path.md, "The shard threads\' warm-up"). Not with SHARD_WORKERS=0'),
  FAULT_INJECTION: s(bool, false, 'tests only: lets the test suite crash a shard on purpose'),
});
