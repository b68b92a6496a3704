// The bracket store's Lua (brackets/adapters/redis/bracket-store.ts), with the names and signatures
// its adapter calls them by (at the end).
import type { ScriptDefinitions } from '../../../../redis/connection.js';

/** KEYS: brackets. ARGV: the JSON read ('' when there was none), the new JSON. 1: written; 0: it changed meanwhile. */
export const SWAP = `
local cur = redis.call('GET', KEYS[1])
if (cur or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

/** KEYS: the lead. ARGV: node id, ttl ms. 1: this node leads (taken or renewed); 0: another node does. */
export const LEAD = `
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

export interface BracketsScripts {
  odsBracketsSwap(key: string, read: string, next: string): Promise<number>;
  odsBracketsLead(key: string, nodeId: string, ttlMs: number): Promise<number>;
}

export const BRACKETS_SCRIPTS: ScriptDefinitions<BracketsScripts> = {
  odsBracketsSwap: { numberOfKeys: 1, lua: SWAP },
  odsBracketsLead: { numberOfKeys: 1, lua: LEAD },
};
