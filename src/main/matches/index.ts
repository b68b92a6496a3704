// The matches concern's door: a match's life, routing (the one road to its shard), ownership and
// takeover, snapshots and the input log, and what the shards send back. Other rooms use only these.
export { Cluster } from './cluster.js';
export { FrameTexts } from './frame-texts.js';
export { MatchLifecycle } from './lifecycle.js';
export { LocalRoutes } from './local-routes.js';
export { type MatchDirectory, type DirectoryRecord } from './match-directory.js';
export { MatchInputs } from './match-inputs.js';
export { type OutputLeases } from './match-ownership.js';
export { MatchSync } from './match-sync.js';
export { ObserverClock } from './observer-clock.js';
export { OwnerDelivery } from './owner-delivery.js';
export { isRehearsal } from './rehearsal-marker.js';
export { readLatestFrameText, registerMatchData } from './rest.js';
export { MatchRouting } from './routing.js';
export { ShardOutput, type PublishCounters } from './shard-output.js';
export { ShardRecovery } from './shard-recovery.js';
export { type SnapshotStore } from './snapshot-store.js';
