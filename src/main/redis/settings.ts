// The Redis connection's settings (README, "Running several nodes"; docs/architecture.md): unset
// REDIS_URL is the embedded default (one process, everything in memory).
import { ConfigError, fail, int, type Parser, part, s, str } from '../base/settings-kit.js';

/** redis://, rediss:// or unix:// (a socket path); the error never echoes the value (it may hold a password). */
const redisUrl: Parser<string> = (raw, name) => {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${name}: expected redis://[user:password@]host[:port][/db], rediss://… or unix:///path/to/redis.sock (value not shown)`);
  }
  if (!['redis:', 'rediss:', 'unix:'].includes(u.protocol)) throw new ConfigError(`${name}: the scheme must be redis:, rediss: or unix: (got ${u.protocol})`);
  if (u.protocol === 'unix:' && !u.pathname) throw new ConfigError(`${name}: unix:// needs the socket path`);
  return raw.trim();
};
/** Redis Sentinel addresses: `host:port` entries separated by commas (IPv6 as `[addr]:port`). */
export interface SentinelAddress { host: string; port: number }
const sentinelList: Parser<readonly SentinelAddress[]> = (raw, name) => raw.split(',').map((entry) => {
  const m = /^\s*(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9_.-]+)):(\d{1,5})\s*$/.exec(entry);
  const port = m ? Number(m[3]) : 0;
  if (!m || port < 1 || port > 65535) return fail(name, raw, 'host:port of each Sentinel, separated by commas ([addr]:port for IPv6)');
  return { host: m[1] ?? m[2], port };
});
const sentinelName: Parser<string> = (raw, name) => (/^[A-Za-z0-9_.-]{1,64}$/.test(raw.trim()) ? raw.trim() : fail(name, raw, '1–64 of A–Z a–z 0–9 _ . -'));
const keyPrefix: Parser<string> = (raw, name) => (/^[A-Za-z0-9_.:{}-]{1,64}$/.test(raw) ? raw : fail(name, raw, '1–64 of A–Z a–z 0–9 _ . : - { }'));
const nodeId: Parser<string> = (raw, name) => (/^[A-Za-z0-9_.-]{1,64}$/.test(raw) ? raw : fail(name, raw, '1–64 of A–Z a–z 0–9 _ . -'));

export const REDIS_SETTINGS = part('redis', 'Scale-out on Redis', {
  REDIS_URL: s(redisUrl, '', 'Redis (or Valkey) shared by every node: redis://[user:pass@]host:port[/db], rediss://…, or unix:///path. Unset: one process, everything in memory (the embedded default). Not with STATE_DIR'),
  REDIS_SENTINELS: s(sentinelList, [] as readonly SentinelAddress[], 'Redis Sentinels, host:port,…: the nodes ask them for the primary of REDIS_SENTINEL_NAME and follow it through a failover; REDIS_URL (redis:// or rediss://) then gives only the credentials, database and TLS, its host is not used'),
  REDIS_SENTINEL_NAME: s(sentinelName, 'mymaster', 'the master group the Sentinels monitor (with REDIS_SENTINELS)'),
  REDIS_SENTINEL_PASSWORD: s(str, '', 'password of the Sentinels themselves (their requirepass), if they have one; never logged'),
  REDIS_KEY_PREFIX: s(keyPrefix, 'ods:', 'prefix of every Redis key and channel (several deployments can share one Redis)'),
  REDIS_LEASE_TTL_MS: s(int(1000, 600_000), 10_000, 'a node owns each of its matches through a Redis lease of this length, renewed every third of it; a lost node\'s matches are taken over after it'),
  REDIS_TIMEOUT_MS: s(int(100, 60_000), 2000, 'timeout of each Redis command, and of the connection at start'),
  REDIS_PROBE_INTERVAL_MS: s(int(100, 60_000), 2000, 'pub/sub liveness probe: a node publishes to itself this often and reconnects its subscriber when 3 probes in a row do not come back'),
  NODE_ID: s(nodeId, '', 'this node\'s name in Redis, logs and the dashboard. Unset: host name, process id and a random suffix'),
});
