// The preview store's Lua (previews/adapters/redis/preview-store.ts), with the names and
// signatures its adapter calls them by (at the end). Expiry and bounds on Redis's clock (TIME).
import type { Flag, ScriptDefinitions } from '../../../../redis/connection.js';
/**
 * Drops expired index entries (in batches: `unpack` has a stack limit); `now` on Redis's clock. An
 * entry whose expiry is `now` is live, as Redis's own key (expired when now > its time).
 */
const PRUNE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
while true do
  local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. now, 'LIMIT', 0, 500)
  if #gone == 0 then break end
  local sizes = redis.call('HMGET', KEYS[3], unpack(gone))
  local freed = 0
  for i = 1, #sizes do freed = freed + (tonumber(sizes[i]) or 0) end
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('HDEL', KEYS[3], unpack(gone))
  if freed > 0 then redis.call('DECRBY', KEYS[4], freed) end
end
`;

/**
 * KEYS: preview(code), previewIndex, previewBytes, previewTotalBytes.
 * ARGV: code, json, size, ttlMs, maxEntries, maxBytes, onlyIfAbsent ('1'/'0').
 */
export const STORE = `${PRUNE}
local code, json, size = ARGV[1], ARGV[2], tonumber(ARGV[3])
local ttl, maxEntries, maxBytes = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local live = redis.call('ZSCORE', KEYS[2], code) ~= false
if ARGV[7] == '1' and (live or redis.call('EXISTS', KEYS[1]) == 1) then return 'exists' end
local previous = 0
if live then previous = tonumber(redis.call('HGET', KEYS[3], code)) or 0 end
local count = redis.call('ZCARD', KEYS[2]) + (live and 0 or 1)
local bytes = (tonumber(redis.call('GET', KEYS[4])) or 0) - previous + size
if count > maxEntries or bytes > maxBytes then return 'full' end
local expiry = now + ttl
redis.call('SET', KEYS[1], json, 'PXAT', expiry)
redis.call('ZADD', KEYS[2], expiry, code)
redis.call('HSET', KEYS[3], code, size)
redis.call('SET', KEYS[4], bytes)
return 'stored'
`;

/** KEYS: previewIndex, previewIndex, previewBytes, previewTotalBytes (PRUNE's numbering). Live count. */
export const SIZE = `${PRUNE}
return redis.call('ZCARD', KEYS[2])
`;

/** The scripts above as the adapter calls them (`conn.scripts(PREVIEWS_SCRIPTS)` defines them on the command connection). */
export interface PreviewsScripts {
  odsPreviewStore(key: string, index: string, sizes: string, total: string, code: string, json: string, size: number, ttlMs: number, maxEntries: number, maxBytes: number, onlyIfAbsent: Flag): Promise<string>;
  odsPreviewSize(unused: string, index: string, sizes: string, total: string): Promise<number>;
}

export const PREVIEWS_SCRIPTS: ScriptDefinitions<PreviewsScripts> = {
  odsPreviewStore: { numberOfKeys: 4, lua: STORE },
  odsPreviewSize: { numberOfKeys: 4, lua: SIZE },
};
