// The snapshot store's Lua (matches/adapters/redis/snapshot-store.ts), with the names and
// signatures its adapter calls them by (at the end). Both are fenced by the stored epoch.
import type { ScriptDefinitions } from '../../../../redis/connection.js';
/**
 * KEYS: snapshot(code). ARGV: epoch, data[, base] (the base its deltas are against: snapshot-format.ts).
 * 0 (nothing changes) when a higher epoch is stored.
 */
export const PUT = `
local current = redis.call('HGET', KEYS[1], 'epoch')
if current and tonumber(current) > tonumber(ARGV[1]) then return 0 end
if ARGV[3] then
  redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'data', ARGV[2], 'base', ARGV[3])
else
  redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'data', ARGV[2])
end
return 1
`;

/** KEYS: snapshot(code). ARGV: epoch. 0 (nothing deleted) when a higher epoch is stored. */
export const DELETE = `
local current = redis.call('HGET', KEYS[1], 'epoch')
if current and tonumber(current) > tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

/** The scripts above as the adapter calls them (`conn.scripts(SNAPSHOTS_SCRIPTS)` defines them on the command connection). */
export interface SnapshotsScripts {
  odsSnapshotPut(key: string, epoch: number, data: string | Buffer, base?: Buffer): Promise<number>;
  odsSnapshotDelete(key: string, epoch: number): Promise<number>;
}

export const SNAPSHOTS_SCRIPTS: ScriptDefinitions<SnapshotsScripts> = {
  odsSnapshotPut: { numberOfKeys: 1, lua: PUT },
  odsSnapshotDelete: { numberOfKeys: 1, lua: DELETE },
};
