// The shard pool's settings (shards/pool.ts), from the configuration: built by the composition root (service.ts).
import type { Config } from '../base/config.js';
import type { Logger } from '../base/log.js';
import { SERVICE_VERSION } from '../base/version.js';

/** The shard pool's settings, from the configuration. */
export function shardPoolOptions(c: Config, log: Logger) {
  return {
    count: Math.max(1, c.SHARD_WORKERS), // 0: one shard, on the main thread (`inline`)
    batchMs: c.SHARD_BATCH_MS,
    youngGenerationMb: c.SHARD_YOUNG_GENERATION_MB,
    log,
    settings: {
      intervalMs: c.BROADCAST_INTERVAL_MS,
      inactivityMs: c.INACTIVITY_TIMEOUT_MS,
      trustReplayTimestamps: c.TRUST_REPLAY_TIMESTAMPS,
      sponsorLogoUrl: c.SPONSOR_LOGO_URL,
      recordReplays: c.RECORD_REPLAYS,
      replayDir: c.REPLAY_DIR,
      serviceVersion: SERVICE_VERSION,
      compression: c.COMPRESSION,
      frameSerializer: c.FRAME_SERIALIZER,
      frameEdge: c.FRAME_EDGE,
      snapshotIntervalMs: c.SNAPSHOT_INTERVAL_MS,
      faultInjection: c.FAULT_INJECTION,
      matchEvents: c.EVENTS_ENABLED,
      warmUp: c.SHARD_WARMUP,
    },
  };
}
