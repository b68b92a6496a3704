// The webhook endpoint store's Lua (events/adapters/redis/webhook-endpoint-store.ts), with the names and
// signatures its adapter calls them by (at the end). One hash, whendpoints: id → the endpoint's JSON.
import type { ScriptDefinitions } from '../../../../redis/connection.js';
/** KEYS: whendpoints, revision. ARGV: id, json, max. 'ok', 'exists' or 'full' (nothing written). */
export const ADD = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'exists' end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCR', KEYS[2])
return 'ok'
`;

/** KEYS: whendpoints, revision. ARGV: id. 1: removed; 0: none had this id. */
export const REMOVE = `
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('INCR', KEYS[2])
return 1
`;

/** The scripts above as the adapter calls them (`conn.scripts(WEBHOOK_ENDPOINTS_SCRIPTS)` defines them on the command connection). */
export interface WebhookEndpointsScripts {
  odsEndpointAdd(key: string, revision: string, id: string, json: string, max: number): Promise<'ok' | 'exists' | 'full'>;
  odsEndpointRemove(key: string, revision: string, id: string): Promise<number>;
}

export const WEBHOOK_ENDPOINTS_SCRIPTS: ScriptDefinitions<WebhookEndpointsScripts> = {
  odsEndpointAdd: { numberOfKeys: 2, lua: ADD },
  odsEndpointRemove: { numberOfKeys: 2, lua: REMOVE },
};
