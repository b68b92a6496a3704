// The standby store's Lua (standby/adapters/redis/standby-store.ts), with the names and
// signatures its adapter calls them by (at the end). One hash per match: armedUntil, digest, primary.
import type { ScriptDefinitions } from '../../../../redis/connection.js';
/** KEYS: standby(code). ARGV: field, value, ttl seconds. One field set, the hash's expiry renewed. */
export const SET = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

/** KEYS: standby(code). ARGV: digest, now, ttl seconds. 1: admitted (the window closes), 0: no open window. */
export const ADMIT = `
local armed = tonumber(redis.call('HGET', KEYS[1], 'armedUntil') or '0')
if armed <= tonumber(ARGV[2]) then return 0 end
redis.call('HDEL', KEYS[1], 'armedUntil')
redis.call('HSET', KEYS[1], 'digest', ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

/** KEYS: standby(code). */
export const DELETE = `
return redis.call('DEL', KEYS[1])
`;

/** The scripts above as the adapter calls them (`conn.scripts(STANDBY_SCRIPTS)` defines them on the command connection). */
export interface StandbyScripts {
  odsStandbySet(key: string, field: 'armedUntil' | 'primary', value: string, ttlS: number): Promise<number>;
  odsStandbyAdmit(key: string, digest: string, now: number, ttlS: number): Promise<number>;
  odsStandbyDelete(key: string): Promise<number>;
}

export const STANDBY_SCRIPTS: ScriptDefinitions<StandbyScripts> = {
  odsStandbySet: { numberOfKeys: 1, lua: SET },
  odsStandbyAdmit: { numberOfKeys: 1, lua: ADMIT },
  odsStandbyDelete: { numberOfKeys: 1, lua: DELETE },
};
