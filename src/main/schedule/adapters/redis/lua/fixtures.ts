// The fixture store's Lua (schedule/adapters/redis/fixture-store.ts), with the names and
// signatures its adapter calls them by (at the end). One hash, fixtures: group code → the fixture's JSON.
import type { ScriptDefinitions } from '../../../../redis/connection.js';
// Every write also increments KEYS[2] (the revision: readers list the hash again only when it moved).

/** KEYS: fixtures, revision. ARGV: max, then code, json pairs. 'ok'; 'exists:<code>'; 'full'. All or nothing. */
export const ADD = `
local n = (#ARGV - 1) / 2
for i = 0, n - 1 do
  if redis.call('HEXISTS', KEYS[1], ARGV[2 + i * 2]) == 1 then return 'exists:' .. ARGV[2 + i * 2] end
end
if redis.call('HLEN', KEYS[1]) + n > tonumber(ARGV[1]) then return 'full' end
for i = 0, n - 1 do redis.call('HSET', KEYS[1], ARGV[2 + i * 2], ARGV[3 + i * 2]) end
redis.call('INCR', KEYS[2])
return 'ok'
`;

/** KEYS: fixtures, revision. ARGV: code, the JSON read, the new JSON ('' deletes). 1: written; 0: it changed meanwhile. */
export const SWAP = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
redis.call('INCR', KEYS[2])
return 1
`;

/** KEYS: fixtures. Every fixture's JSON. */
export const ALL = `
return redis.call('HVALS', KEYS[1])
`;

/** The scripts above as the adapter calls them (`conn.scripts(FIXTURES_SCRIPTS)` defines them on the command connection). */
export interface FixturesScripts {
  odsFixtureAdd(key: string, revision: string, max: number, ...pairs: string[]): Promise<string>;
  odsFixtureSwap(key: string, revision: string, code: string, read: string, next: string): Promise<number>;
  odsFixtureAll(key: string): Promise<string[]>;
}

export const FIXTURES_SCRIPTS: ScriptDefinitions<FixturesScripts> = {
  odsFixtureAdd: { numberOfKeys: 2, lua: ADD },
  odsFixtureSwap: { numberOfKeys: 2, lua: SWAP },
  odsFixtureAll: { numberOfKeys: 1, lua: ALL },
};
