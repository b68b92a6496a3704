// Environment configuration: one table of settings, validated once at start.
// An invalid value stops the start with one line naming the variable.
import os from 'node:os';
import semver from 'semver';
import { sha256Hex } from './hashing.js';

export class ConfigError extends Error {}

type Parser<T> = (raw: string, name: string) => T;

const fail = (name: string, raw: string, expected: string): never => {
  throw new ConfigError(`${name}: expected ${expected}, got ${JSON.stringify(raw)}`);
};

const bool: Parser<boolean> = (raw, name) => {
  const v = raw.trim().toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  return fail(name, raw, 'true or false');
};
const int = (min: number, max: number): Parser<number> => (raw, name) => {
  const v = raw.trim();
  if (!/^-?\d+$/.test(v)) return fail(name, raw, `an integer from ${min} to ${max}`);
  const n = Number(v);
  if (n < min || n > max) return fail(name, raw, `an integer from ${min} to ${max}`);
  return n;
};
const str: Parser<string> = (raw) => raw;
const url: Parser<string> = (raw, name) => {
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
  } catch {
    fail(name, raw, 'an http:// or https:// URL');
  }
  return raw.replace(/\/+$/, '');
};
/** Deeplinks use a custom scheme (e.g. spectra://), so any absolute URL is accepted. */
const anyUrl: Parser<string> = (raw, name) => {
  try { new URL(raw); } catch { fail(name, raw, 'an absolute URL'); }
  return raw;
};
const oneOf = <T extends string>(...values: T[]): Parser<T> => (raw, name) =>
  (values as string[]).includes(raw.trim()) ? (raw.trim() as T) : fail(name, raw, `one of ${values.join(', ')}`);
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
const semverRange: Parser<string> = (raw, name) => (semver.validRange(raw) ? raw : fail(name, raw, 'a semver range such as ">=0.3.0 <0.4.0"'));
/** One operator token of ADMIN_TOKEN: its id (named, or `token-` and 8 hex digits of its digest) and the token. */
export interface AdminTokenEntry { id: string; token: string }

/** An unnamed token's id: `token-` and the first 8 hex digits of its SHA-256 (enough to tell tokens apart in logs). */
export const defaultTokenId = (token: string): string => `token-${sha256Hex(token).slice(0, 8)}`;

/**
 * Admin tokens: `[id:]token` entries separated by commas, parsed here once (http/admin-tokens.ts keeps
 * their digests). The error never echoes the value (it is a secret).
 */
const adminTokens: Parser<readonly AdminTokenEntry[]> = (raw, name) => {
  const ids = new Set<string>();
  const out: AdminTokenEntry[] = [];
  for (const entry of raw.split(',')) {
    const e = entry.trim();
    const colon = e.indexOf(':');
    const id = colon > 0 ? e.slice(0, colon) : '';
    const token = colon > 0 ? e.slice(colon + 1) : e;
    if (token.length < 16 || /[\s,]/.test(token)) throw new ConfigError(`${name}: every token must be at least 16 characters without spaces or commas (value not shown)`);
    if (id && !/^[A-Za-z0-9_.-]{1,64}$/.test(id)) throw new ConfigError(`${name}: a token id (before ':') must be 1–64 of A–Z a–z 0–9 _ . - (value not shown)`);
    if (id && ids.has(id)) throw new ConfigError(`${name}: token id ${id} is used twice`);
    if (id) ids.add(id);
    out.push({ id: id || defaultTokenId(token), token });
  }
  return out;
};

/** Read tokens: comma-separated, each at least 16 characters (the error never echoes the value). */
const readTokens: Parser<readonly string[]> = (raw, name) => {
  const tokens = raw.split(',').map((t) => t.trim());
  if (tokens.some((t) => t.length < 16 || /\s/.test(t))) throw new ConfigError(`${name}: every token must be at least 16 characters without spaces or commas (value not shown)`);
  return tokens;
};
/** A JSON array (its members are checked by their user; the error never echoes the value: it may hold secrets). */
const jsonArray: Parser<readonly unknown[]> = (raw, name) => {
  let v: unknown;
  try { v = JSON.parse(raw); } catch { throw new ConfigError(`${name}: expected a JSON array (value not shown)`); }
  if (!Array.isArray(v)) throw new ConfigError(`${name}: expected a JSON array (value not shown)`);
  return v;
};

interface Setting<T> { parse: Parser<T>; def: T; doc: string }
const s = <T>(parse: Parser<T>, def: T, doc: string): Setting<T> => ({ parse, def, doc });

const defaultShards = Math.max(1, Math.min(4, os.availableParallelism() - 1));

/** Every setting: name → parser, default, one-line meaning. The README's table mirrors this (a test checks it). */
export const SETTINGS = {
  INSECURE: s(bool, false, 'true serves plain HTTP/WS on all three ports; otherwise TLS'),
  SERVER_CERT: s(str, '', 'TLS certificate file (PEM); with SERVER_KEY. Unset: a self-signed pair is generated in DATA_DIR'),
  SERVER_KEY: s(str, '', 'TLS private key file (PEM); with SERVER_CERT'),
  HOST: s(str, '0.0.0.0', 'bind address of the three listeners (`::`: IPv6 and IPv4 both, dual stack)'),
  TRUST_PROXY: s(bool, false, 'true: behind a reverse proxy, the client address logged is the last X-Forwarded-For hop (else X-Real-IP); never used for access decisions. Also turns MAX_CONNECTIONS_PER_ADDRESS off (every connection is the proxy\'s)'),
  INGEST_PORT: s(int(0, 65535), 5100, 'ingestion Socket.IO port (observer and auxiliary clients); 0 = ephemeral'),
  REST_PORT: s(int(0, 65535), 5101, 'REST API port; 0 = ephemeral'),
  BROADCAST_PORT: s(int(0, 65535), 5200, 'broadcast Socket.IO port (overlay frontends); 0 = ephemeral'),
  DATA_DIR: s(str, './.data', 'where the generated certificate and access key are kept, and the operator data without REDIS_URL: the day\'s schedule (fixtures.json), the output delays (output-delays.json) and the webhook endpoints added through the admin API (webhook-endpoints.json, with their secrets, owner-only)'),
  LOG_LEVEL: s(oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'), 'info', 'pino log level'),
  LOG_FORMAT: s(oneOf('json', 'pretty'), process.env.NODE_ENV === 'development' ? 'pretty' : 'json', 'json (default) or pretty (default when NODE_ENV=development)'),
  REQUIRE_AUTH_KEY: s(bool, true, 'false accepts every access key'),
  AUTH_KEY: s(str, '', 'the local access key. Unset (and no backend): one is generated into DATA_DIR on first start and printed'),
  KEYS_FILE: s(str, '', 'JSON file of access keys with their organisations (README, "Access keys file"); checked after AUTH_KEY, before the backend; reloaded on change'),
  ADMIN_TOKEN: s(adminTokens, [] as readonly AdminTokenEntry[], 'admin token(s) for /admin/* and /dashboard, comma-separated, each `[id:]token` (≥ 16 chars); unset: those routes answer 404'),
  USE_BACKEND: s(bool, false, 'true enables the vendor backend: key validation, match registration, support packages, OAuth'),
  BACKEND_URL: s(url, '', 'backend base URL (key validation, match register/update/complete)'),
  BACKEND_TOKEN: s(str, '', 'sent as X-User-Token to the backend'),
  SUPPORTER_CHECK_URL: s(url, '', 'supporter check base URL: GET {url}/{orgId} → { isSupporter }'),
  STATS_BACKEND_URL: s(url, '', 'statistics backend base URL (supporter organisations only)'),
  STATS_BACKEND_TOKEN: s(str, '', 'sent as Authentication to the statistics backend'),
  PLAYERCAM_URL: s(url, '', 'player-camera service base URL; unset: nothing is fetched'),
  TEBEX_BASE_URL: s(url, '', 'store platform base URL for GET /getSupportPackages'),
  TEBEX_STORE_ID: s(str, '', 'store id for the support packages'),
  TEBEX_EXTENSION_ID: s(str, '', 'extension id for the support packages'),
  DISCORD_CLIENT_ID: s(str, '', 'OAuth client id'),
  DISCORD_CLIENT_SECRET: s(str, '', 'OAuth client secret'),
  DISCORD_REDIRECT_URI: s(str, '', 'OAuth redirect URI sent with the code exchange'),
  DISCORD_OAUTH_URL: s(url, 'https://discord.com/api/oauth2/token', 'OAuth token endpoint'),
  DISCORD_USER_URL: s(url, 'https://discord.com/api/users/@me', 'OAuth user-info endpoint'),
  SPECTRA_CLIENT_DEEPLINK: s(anyUrl, 'spectra://client/oauth', 'deeplink the OAuth success page opens'),
  COMPATIBLE_CLIENT_RANGE: s(semverRange, '>=0.3.0 <0.4.0', 'semver range of accepted observer/auxiliary client versions'),
  OUTBOUND_TIMEOUT_MS: s(int(100, 60_000), 5000, 'timeout of every outbound HTTP call'),
  MAX_BODY_BYTES: s(int(1_048_576, 64 * 1_048_576), 1_048_576, 'largest accepted REST request body (413 above)'),
  MAX_MESSAGE_BYTES: s(int(1024, 16 * 1_048_576), 1_000_000, 'largest Socket.IO message (maxHttpBufferSize / maxPayloadLength); a larger one closes the connection'),
  MAX_PAYLOAD_BYTES: s(int(1024, 16 * 1_048_576), 65_536, 'largest obs_logon / obs_data / aux_data payload the service takes (larger: logon refused, data dropped as too_large); real ones are a few KB'),
  PREVIEW_TTL_MS: s(int(1, 86_400_000), 600_000, 'preview lifetime from creation'),
  PREVIEW_MAX: s(int(1, 10_000_000), 10_000, 'most previews stored at once (503 above)'),
  PREVIEW_MAX_BYTES: s(int(1_048_576, 17_179_869_184), 268_435_456, 'most bytes all stored previews may hold together (their JSON text; 503 above): the count alone would allow PREVIEW_MAX × MAX_BODY_BYTES'),
  TEAM_INFO_TTL_MS: s(int(1, 604_800_000), 3_600_000, 'team info lifetime'),
  TEAM_INFO_CLEANUP_MS: s(int(10, 86_400_000), 300_000, 'interval of the team info cleanup'),
  SUPPORT_PACKAGES_TTL_MS: s(int(1, 86_400_000), 600_000, 'support package cache lifetime'),
  GROUP_SECRET_LENGTH: s(int(12, 128), 16, 'length of the group secret'),
  RECOVERY_WINDOW_MS: s(int(120_000, 3_600_000), 180_000, 'ingestion session resumption window'),
  INACTIVITY_TIMEOUT_MS: s(int(1, 86_400_000), 1_800_000, 'a match with no new event for this long is removed'),
  SPONSOR_LOGO_URL: s(str, 'https://auto.valospectra.com/assets/misc/logo.webp', 'logo appended to the sponsors of non-supporters'),
  RECORD_REPLAYS: s(bool, false, 'record every match to REPLAY_DIR'),
  REPLAY_DIR: s(str, './replays', 'where replay files go'),
  SHARD_WORKERS: s(int(0, 64), defaultShards, `match shard worker threads (default: cores − 1, 1–4; here ${defaultShards}); 0: one shard on the main thread (no thread hand-offs; an exception in it restarts it from its snapshots as a thread's would)`),
  SHARD_BATCH_MS: s(int(0, 20), 2, 'how long ingested payloads wait to travel to their shard thread in one message (0: next event-loop turn). Unset with SHARD_WORKERS=0: 0 (no hand-off to amortize)'),
  SHARD_YOUNG_GENERATION_MB: s(int(0, 1024), 0, "each shard thread's V8 young generation in MB (the Worker's resourceLimits.maxYoungGenerationSizeMb; its new space is two thirds of it); 0: V8's default (48 on the 64-bit hosts measured). A cap bounds the new space a burst grows, committed until V8's memory reducer runs, but costs CPU at game pace (12: ~+15 % per frame; docs/perf/memory.md)"),
  FRAME_SERIALIZER: s(oneOf('wire', 'json'), 'wire', 'how frames are serialized: wire (one pass to the WebSocket message, unchanged players reused) or json (fast-json-stringify, then escaped)'),
  FRAME_EDGE: s(oneOf('leading', 'cycle', 'auto'), 'auto', 'when the frame of a changed match goes out: leading (after the batch that changed it, when its last frame is at least BROADCAST_INTERVAL_MS old; else when the interval is up), cycle (at the next cycle of its shard: one wake-up and one hand-off for every match changed in the interval, up to one interval more latency) or auto (the default: leading while the service is busy, at least 50 observer and auxiliary messages per interval; while it is quiet, those messages wait up to one interval on the main thread and go to their shard together, whose frames then go out: one hand-off per interval instead of one per message)'),
  BROADCAST_INTERVAL_MS: s(int(10, 10_000), 100, 'the broadcast cycle: at most one frame per match per interval'),
  TRUST_REPLAY_TIMESTAMPS: s(bool, false, 'replays and tests only: the recorded timestamp of each message drives the match clock'),
  COMPRESSION: s(bool, true, 'permessage-deflate on the Socket.IO listeners (threshold 1024 bytes)'),
  // Hardening (docs/reliability.md): budgets, caps, timeouts, state, metrics.
  INGEST_RATE_PER_SOCKET: s(int(1, 1_000_000), 200, 'messages per second one ingestion socket may send, sustained (token bucket refill); the excess waits in the socket\'s backlog (logged-on sockets, INGEST_BACKLOG_PER_SOCKET) or is shed and counted'),
  INGEST_BURST_PER_SOCKET: s(int(1, 1_000_000), 100, 'burst one ingestion socket may send above its rate (token bucket size)'),
  // Sized for a client's catch-up after an outage of RECOVERY_WINDOW_MS (180 s) at the observer's peak rate (20 msg/s): docs/reliability.md.
  INGEST_BACKLOG_PER_SOCKET: s(int(0, 1_000_000), 3600, 'messages of a logged-on ingestion socket that wait for budget instead of being shed (a client flushing what it buffered while disconnected), forwarded in order at INGEST_RATE_PER_SOCKET; 0 = shed at once. Raise it with RECOVERY_WINDOW_MS'),
  INGEST_BACKLOG_BYTES_PER_SOCKET: s(int(0, 1_073_741_824), 2_097_152, 'most characters of payload waiting in one socket\'s backlog (a payload that is not a string counts as MAX_MESSAGE_BYTES)'),
  IDLE_SOCKET_TIMEOUT_MS: s(int(100, 3_600_000), 30_000, 'a socket that has not logged on and sent nothing for this long is closed (both Socket.IO listeners)'),
  MAX_LIVE_MATCHES: s(int(1, 1_000_000), 1000, 'most live matches at once; a new match past it is refused with an ack reason'),
  MAX_MATCHES_PER_KEY: s(int(1, 1_000_000), 250, 'most live matches created with one access key (one organisation with the backend)'),
  MAX_SOCKETS_PER_ADDRESS: s(int(0, 1_000_000), 1000, 'most open sockets from one remote address, per Socket.IO listener (0 = no cap; behind a reverse proxy every client has its address). A venue behind one address needs two per PC (README, "Many clients behind one address")'),
  MAX_CONNECTIONS_PER_ADDRESS: s(int(0, 1_000_000), 1000, 'most TCP connections from one remote address on each port that have not completed a request (broadcast: open at once; ingestion and REST: a token bucket of this burst, refilled at this many per 12 s); one past it is closed at once. 0 = no cap; off with TRUST_PROXY=true (the proxy is the only peer)'),
  IPV6_PREFIX_LENGTH: s(int(32, 128), 64, 'per-address caps count an IPv6 peer by this many leading bits (64: one subscriber\'s /64; 128: each address); IPv4-mapped peers count as IPv4'),
  REQUEST_HEAD_TIMEOUT_MS: s(int(1000, 10_000), 8000, 'a broadcast-port connection that has not sent a complete request head (TLS handshake included) this long after it opened is closed, however slowly the head arrives; also the deadline for a Socket.IO connection to join (CONNECT) and to finish a transport upgrade on both Socket.IO ports. The uWS ports close such connections after their fixed 10 s idle timeout (8–12 s)'),
  AUX_CLIENTS_ENABLED: s(bool, true, 'false refuses every auxiliary (player) client logon'),
  FRONTEND_MAX_BUFFERED_BYTES: s(int(16_384, 67_108_864), 262_144, 'an overlay frontend with more than this queued is skipped (slow reader) and gets the latest frame once it drained'),
  DASHBOARD_MAX_OPEN: s(int(1, 1000), 32, 'most operator dashboards open at once (each is one streamed HTTP response; 503 above)'),
  REHEARSAL_MAX_MS: s(int(10_000, 86_400_000), 7_200_000, 'a rehearsal (README, "Rehearsals") ends by itself after this long, looping or not'),
  REHEARSAL_MAX_UPLOAD_BYTES: s(int(65_536, 268_435_456), 16_777_216, 'largest replay file a rehearsal may be given (its text; 413 above)'),
  PING_INTERVAL_MS: s(int(100, 300_000), 25_000, 'Socket.IO heartbeat interval on both listeners'),
  PING_TIMEOUT_MS: s(int(100, 300_000), 20_000, 'a socket that does not answer a ping within this is closed'),
  SHUTDOWN_TIMEOUT_MS: s(int(500, 300_000), 10_000, 'SIGTERM/SIGINT: the process exits at the latest this long after the signal'),
  STATE_DIR: s(str, '', 'directory for live-match snapshots and the resumable-session table; set: matches survive a restart. Unset: nothing is written'),
  INPUT_LOG: s(bool, true, 'with STATE_DIR or REDIS_URL, keep every observer and auxiliary payload a match is given until a stored snapshot holds it (in STATE_DIR/inputs or a Redis stream per match), so a match rebuilt after a kill or a takeover gets them again; false: a rebuilt match loses what came after its last snapshot'),
  SNAPSHOT_INTERVAL_MS: s(int(100, 600_000), 1000, 'how often each shard snapshots the matches that changed (crash recovery; written to STATE_DIR when set)'),
  METRICS_ENABLED: s(bool, true, 'serve GET /metrics (Prometheus text format) on METRICS_HOST:METRICS_PORT'),
  METRICS_HOST: s(str, '127.0.0.1', 'bind address of the metrics listener (not public by default)'),
  METRICS_PORT: s(int(0, 65535), 5102, 'metrics port (plain HTTP); 0 = ephemeral'),
  // A standby observer per match and the links' health (docs/reliability.md, "A standby observer"; measured gaps: bench/observer-gaps.ts).
  STANDBY_ARM_WINDOW_MS: s(int(1000, 86_400_000), 600_000, 'how long an armed standby window (POST /admin/matches/:groupCode/standby) admits one more observer logon of the match\'s organisation as its standby'),
  FAILOVER_SILENCE_MS: s(int(500, 600_000), 3000, 'the standby becomes the primary when the primary has sent nothing for this long since the standby sent data the primary did not (or since its socket closed)'),
  FAILOVER_HOLD_DOWN_MS: s(int(0, 3_600_000), 30_000, 'after a failover or a manual swap, no automatic failover of that match for this long (no flapping); a manual swap is never held down'),
  OBSERVER_SILENT_MS: s(int(1000, 3_600_000), 75_000, 'a match whose primary observer has sent nothing for this long during a live round is flagged silent (dashboard, ods_matches_observer_silent); above the longest gap of a healthy observer (67 s, combat)'),
  // Scale-out (README, "Running several nodes"; docs/architecture.md): unset REDIS_URL is the embedded default.
  REDIS_URL: s(redisUrl, '', 'Redis (or Valkey) shared by every node: redis://[user:pass@]host:port[/db], rediss://…, or unix:///path. Unset: one process, everything in memory (the embedded default). Not with STATE_DIR'),
  REDIS_SENTINELS: s(sentinelList, [] as readonly SentinelAddress[], 'Redis Sentinels, host:port,…: the nodes ask them for the primary of REDIS_SENTINEL_NAME and follow it through a failover; REDIS_URL (redis:// or rediss://) then gives only the credentials, database and TLS, its host is not used'),
  REDIS_SENTINEL_NAME: s(sentinelName, 'mymaster', 'the master group the Sentinels monitor (with REDIS_SENTINELS)'),
  REDIS_SENTINEL_PASSWORD: s(str, '', 'password of the Sentinels themselves (their requirepass), if they have one; never logged'),
  REDIS_KEY_PREFIX: s(keyPrefix, 'ods:', 'prefix of every Redis key and channel (several deployments can share one Redis)'),
  REDIS_LEASE_TTL_MS: s(int(1000, 600_000), 10_000, 'a node owns each of its matches through a Redis lease of this length, renewed every third of it; a lost node\'s matches are taken over after it'),
  REDIS_TIMEOUT_MS: s(int(100, 60_000), 2000, 'timeout of each Redis command, and of the connection at start'),
  SESSION_LOOKUP_RETRY_MS: s(int(10, 10_000), 250, 'an ingestion session lookup that Redis did not answer (unreachable, a failover under way) is asked again after this, doubling up to 2 s, while the socket\'s messages are held (at most INGEST_BACKLOG_PER_SOCKET)'),
  SESSION_LOOKUP_DEADLINE_MS: s(int(1000, 600_000), 15_000, 'a reconnected ingestion socket whose session lookup Redis has not answered this long after its connection (or whose held messages are full) has its transport closed: the client reconnects by itself and its session is looked up again, its held messages first'),
  REDIS_PROBE_INTERVAL_MS: s(int(100, 60_000), 2000, 'pub/sub liveness probe: a node publishes to itself this often and reconnects its subscriber when 3 probes in a row do not come back'),
  NODE_ID: s(nodeId, '', 'this node\'s name in Redis, logs and the dashboard. Unset: host name, process id and a random suffix'),
  // Match events, webhooks, the live stream and match records (README, "Events, webhooks and records"; docs/events.md).
  EVENTS_ENABLED: s(bool, true, 'derive match events (webhooks, GET /events, match records); false: none are derived, stored or sent'),
  EVENTS_READ_TOKEN: s(readTokens, [] as readonly string[], 'token(s) for GET /events, comma-separated (≥ 16 chars each); unset: GET /events answers 404'),
  EVENTS_RESUME_WINDOW_MS: s(int(10_000, 86_400_000), 600_000, 'GET /events: a reconnecting client gets the events it missed (Last-Event-ID) when they are at most this old'),
  EVENTS_RETENTION_MS: s(int(60_000, 31_536_000_000), 604_800_000, 'how long match events and records are kept (in the `events` folder of STATE_DIR, else DATA_DIR; with REDIS_URL in Redis, records and dead letters only there) after they were written'),
  EVENTS_MAX_STREAMS: s(int(1, 10_000), 100, 'most GET /events streams open at once (503 above)'),
  WEBHOOKS: s(jsonArray, [] as readonly unknown[], 'webhook endpoints, a JSON array of { id, url, secret, events?, organizations?, batch? } (README, "Webhooks"); more through the admin API'),
  WEBHOOK_RETRY_FOR_MS: s(int(1000, 604_800_000), 3_600_000, 'a webhook delivery that keeps failing is retried (1 s doubling up to 30 s between attempts) for this long, then dead-lettered'),
  FAULT_INJECTION: s(bool, false, 'tests only: lets the test suite crash a shard on purpose'),
} as const;

type Settings = typeof SETTINGS;
export type Config = { -readonly [K in keyof Settings]: Settings[K]['def'] };

export function loadConfig(env: Record<string, string | undefined>): Config {
  const out: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = env[name];
    out[name] = raw === undefined || raw === '' ? setting.def : setting.parse(raw, name);
  }
  const c = out as Config;
  if (Boolean(c.SERVER_CERT) !== Boolean(c.SERVER_KEY)) {
    throw new ConfigError(`${c.SERVER_CERT ? 'SERVER_KEY' : 'SERVER_CERT'}: must be set together with ${c.SERVER_CERT ? 'SERVER_CERT' : 'SERVER_KEY'}`);
  }
  // The batch window amortizes a thread hand-off; a shard on the main thread has none, and the
  // window's timer would be one more wake-up per message at game pace (docs/benchmarks.md, issue 20).
  if (c.SHARD_WORKERS === 0 && !env.SHARD_BATCH_MS) c.SHARD_BATCH_MS = 0;
  if (c.REDIS_URL && c.STATE_DIR) throw new ConfigError('STATE_DIR: not with REDIS_URL (with Redis, snapshots and sessions are kept in Redis)');
  if (c.REDIS_SENTINELS.length && !/^rediss?:/.test(c.REDIS_URL)) throw new ConfigError('REDIS_SENTINELS: needs REDIS_URL=redis://[user:password@]<name>[/db] (or rediss://): its credentials, database and TLS; the Sentinels give the host');
  if (c.USE_BACKEND && !c.BACKEND_URL) throw new ConfigError('BACKEND_URL: required when USE_BACKEND=true');
  return c;
}
