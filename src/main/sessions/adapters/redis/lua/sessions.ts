// The session table's Lua (sessions/adapters/redis/session-store.ts), with the names and
// signatures its adapter calls them by (at the end). Writes compare a session's whole JSON text (no script
// decodes JSON); the index sets get an expiry at least as long as their members'.
import type { Arg, Flag, ScriptDefinitions } from '../../../../redis/connection.js';
/** Gives the index set (KEYS[n]) an expiry of at least `ttl`. */
const REFRESH_INDEX = `
local function refresh(key, ttl)
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
`;

/**
 * KEYS: session(id), index set, auxHolder (auxiliary sessions; else the index again).
 * ARGV: id, json, ttl, '1' to claim the holder (putAuxiliary: 0 when it is taken).
 */
export const PUT = `${REFRESH_INDEX}
local ttl = tonumber(ARGV[3])
if ARGV[4] == '1' and not redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ttl) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
redis.call('SADD', KEYS[2], ARGV[1])
refresh(KEYS[2], ttl)
return 1
`;

/**
 * KEYS: session(old), session(new), index set, auxHolder (or the index again).
 * ARGV: old id, the text read, new id, new text, ttl, '1' for an auxiliary session, tombstone text.
 * 1: swapped; 0: gone; -1: changed since it was read. The old key keeps a tombstone for `ttl`
 * (unless the id is unchanged), so that the node that held it learns it was taken over.
 */
export const TAKE_OVER = `${REFRESH_INDEX}
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
if raw ~= ARGV[2] then return -1 end
local ttl = tonumber(ARGV[5])
redis.call('SET', KEYS[1], ARGV[7], 'PX', ttl)
redis.call('SET', KEYS[2], ARGV[4], 'PX', ttl)
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[3])
refresh(KEYS[3], ttl)
if ARGV[6] == '1' then
  local holder = redis.call('GET', KEYS[4])
  if not holder or holder == ARGV[1] then redis.call('SET', KEYS[4], ARGV[3], 'PX', ttl) end
end
return 1
`;

/**
 * KEYS: session(id), index set, auxHolder (or the index again: touched for auxiliary sessions only).
 * ARGV: id, the text expected, new text ('' deletes), ttl of the new text, '1' to renew (PEXPIRE
 * only, the holder too), '1' to release the holder, '1' for an auxiliary session.
 * 1: done; 0: the session is gone; -1: it is not what this node wrote (taken over elsewhere).
 */
export const UPDATE = `${REFRESH_INDEX}
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if current ~= ARGV[2] then return -1 end
local ttl = tonumber(ARGV[4])
local aux = ARGV[7] == '1'
if ARGV[5] == '1' then
  redis.call('PEXPIRE', KEYS[1], ttl)
  if aux and redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('PEXPIRE', KEYS[3], ttl) end
  refresh(KEYS[2], ttl)
  return 1
end
if ARGV[3] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[1])
else
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ttl)
  refresh(KEYS[2], ttl)
end
if aux and ARGV[6] == '1' and redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
return 1
`;

/**
 * KEYS: the group's index set (or a placeholder), the match id's index set (or a placeholder), then
 * n session keys, then n holder keys (for an observer: its session key again). ARGV: n, then n ids, then n texts read,
 * then the tombstone's ttl and text.
 * Deletes each session whose text is still the one read, and drops every given id from the index
 * sets. Returns the ids ended. An ended session's key keeps a tombstone for `ttl` (its holder's
 * next write finds it changed).
 */
export const END = `
local n = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2 + 2 * n])
local ended = {}
for i = 1, n do
  local id, raw = ARGV[1 + i], ARGV[1 + n + i]
  local current = redis.call('GET', KEYS[2 + i])
  if current == raw then
    redis.call('SET', KEYS[2 + i], ARGV[3 + 2 * n], 'PX', ttl)
    if redis.call('GET', KEYS[2 + n + i]) == id then redis.call('DEL', KEYS[2 + n + i]) end
    ended[#ended + 1] = id
  end
  if not current or current == raw then
    redis.call('SREM', KEYS[1], id)
    redis.call('SREM', KEYS[2], id)
  end
end
return ended
`;

/** The scripts above as the adapter calls them (`conn.scripts(SESSIONS_SCRIPTS)` defines them on the command connection). */
export interface SessionsScripts {
  odsSessionPut(key: string, index: string, holder: string, id: string, json: string, ttl: number, claim: Flag): Promise<number>;
  odsSessionTakeOver(oldKey: string, newKey: string, index: string, holder: string, oldId: string, read: string, newId: string, json: string, ttl: number, aux: Flag, tombstone: string): Promise<number>;
  odsSessionUpdate(key: string, index: string, holder: string, id: string, expected: string, json: string, ttl: number, renew: Flag, release: Flag, aux: Flag): Promise<number>;
  /** The number of keys is its first argument. */
  odsSessionEnd(...args: Arg[]): Promise<string[]>;
}

export const SESSIONS_SCRIPTS: ScriptDefinitions<SessionsScripts> = {
  odsSessionPut: { numberOfKeys: 3, lua: PUT },
  odsSessionTakeOver: { numberOfKeys: 4, lua: TAKE_OVER },
  odsSessionUpdate: { numberOfKeys: 3, lua: UPDATE },
  odsSessionEnd: { lua: END },
};
