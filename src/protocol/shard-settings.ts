// A shard thread's settings: the pool passes them as the Worker's `workerData` (structured clone).

export interface ShardSettings {
  shard: number;
  intervalMs: number;
  inactivityMs: number;
  trustReplayTimestamps: boolean;
  sponsorLogoUrl: string;
  recordReplays: boolean;
  replayDir: string;
  serviceVersion: string;
  /** Compute permessage-deflate deltas between consecutive frames (COMPRESSION). */
  compression: boolean;
  /** FRAME_SERIALIZER: 'wire' (one pass, cached subtrees) or 'json' (fast-json-stringify, then escaped). */
  frameSerializer: 'wire' | 'json';
  /** FRAME_EDGE: frames after the batch that changed the match (leading and auto: with auto the main thread holds a quiet service's messages for one interval, main/shards/batches.ts), or at the shard's cycle only (cycle). Absent: leading. */
  frameEdge?: 'leading' | 'cycle' | 'auto';
  /** SNAPSHOT_INTERVAL_MS: how often the matches that changed are snapshotted to the main thread. */
  snapshotIntervalMs: number;
  /** EVENTS_ENABLED: derive match events (workers/events/) and send them with the shard's output. */
  matchEvents?: boolean;
  /** SHARD_WARMUP: play the recorded match through a throwaway shard before the first command (workers/shard/warm-up.ts); a restarted thread does not. */
  warmUp?: boolean;
  /** FAULT_INJECTION (tests only): honour `test_crash`. */
  faultInjection?: boolean;
}
