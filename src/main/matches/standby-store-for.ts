// Which StandbyStore adapter a process uses: Redis when it scales out (the standby may log on to
// another node than the owner's), STATE_DIR's when matches survive a restart, memory otherwise.
import { MemoryStandbyStore } from '../adapters/memory/standby-store.js';
import { RedisStandbyStore } from '../adapters/redis/standby-store.js';
import type { StateFiles } from '../adapters/state-dir/files.js';
import { StateDirStandbyStore } from '../adapters/state-dir/standby-store.js';
import type { RedisConnection } from '../adapters/redis/connection.js';
import type { StandbyStore } from '../ports/standby-store.js';

export function standbyStoreFor(stateFiles: StateFiles | null, redis: { conn: RedisConnection } | null): StandbyStore {
  if (redis) return new RedisStandbyStore(redis.conn);
  if (stateFiles) return new StateDirStandbyStore(stateFiles);
  return new MemoryStandbyStore();
}
