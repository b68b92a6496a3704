// The output delay store's Lua (output-delay/adapters/redis/output-delay-store.ts), with the names and
// signatures its adapter calls them by (at the end). One hash, odelays: group code → seconds.
import type { ScriptDefinitions } from '../../../../redis/connection.js';
/** KEYS: odelays, revision. ARGV: code, seconds ('0' deletes), max. 1: written; 0: a new code past the bound. */
export const SET = `
if ARGV[2] ~= '0' and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
if ARGV[2] == '0' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
redis.call('INCR', KEYS[2])
return 1
`;

/** The scripts above as the adapter calls them (`conn.scripts(OUTPUT_DELAYS_SCRIPTS)` defines them on the command connection). */
export interface OutputDelaysScripts {
  odsDelaySet(key: string, revision: string, code: string, seconds: string, max: number): Promise<number>;
}

export const OUTPUT_DELAYS_SCRIPTS: ScriptDefinitions<OutputDelaysScripts> = {
  odsDelaySet: { numberOfKeys: 2, lua: SET },
};
