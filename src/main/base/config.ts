// Environment configuration: one table of settings, validated once at start.
// An invalid value stops the start with one line naming the variable.
//
// Each room owns its settings' part (`src/main/<room>/settings.ts`: parsers, defaults, meanings);
// this module assembles them into the one SETTINGS table and the one Config every caller reads, and
// checks what spans parts. The parts import only base/ (settings-kit.ts), so the import check
// (scripts/check-imports.mjs, SETTINGS_PARTS) places them on the base layer and lets this module, and
// only this one, import them past their room's door: the Config type stays at the bottom of the
// house, where the sockets, the shard pool and every concern read it.
import { ADMIN_SETTINGS } from '../admin/settings.js';
import { BACKEND_SETTINGS } from '../backend/settings.js';
import { BRACKET_SETTINGS } from '../brackets/settings.js';
import { BROADCAST_SETTINGS } from '../broadcast/settings.js';
import { EVENT_SETTINGS } from '../events/settings.js';
import { INGEST_SETTINGS } from '../ingest/settings.js';
import { MATCH_SETTINGS } from '../matches/settings.js';
import { METRICS_SETTINGS } from '../metrics/settings.js';
import { PREVIEW_SETTINGS } from '../previews/settings.js';
import { REDIS_SETTINGS } from '../redis/settings.js';
import { REPLAY_SETTINGS } from '../rehearsal/settings.js';
import { REST_SETTINGS } from '../rest/settings.js';
import { SESSION_SETTINGS } from '../sessions/settings.js';
import { SHARD_SETTINGS } from '../shards/settings.js';
import { CONNECTION_LIMIT_SETTINGS, LISTENER_SETTINGS } from '../sockets/settings.js';
import { STANDBY_SETTINGS } from '../standby/settings.js';
import { PROCESS_SETTINGS } from './settings.js';
import { ConfigError, type Setting } from './settings-kit.js';

export { ConfigError } from './settings-kit.js';
export { type AdminTokenEntry, defaultTokenId } from '../admin/settings.js';
export type { SentinelAddress } from '../redis/settings.js';

/** The parts in the README's reading order (`npm run docs:env` prints one table each). */
export const SETTINGS_PARTS = [
  LISTENER_SETTINGS, PROCESS_SETTINGS, BACKEND_SETTINGS, INGEST_SETTINGS, SESSION_SETTINGS, MATCH_SETTINGS,
  SHARD_SETTINGS, BROADCAST_SETTINGS, CONNECTION_LIMIT_SETTINGS, REST_SETTINGS, ADMIN_SETTINGS, STANDBY_SETTINGS,
  PREVIEW_SETTINGS, REPLAY_SETTINGS, EVENT_SETTINGS, BRACKET_SETTINGS, REDIS_SETTINGS, METRICS_SETTINGS,
] as const;

/** A union of the parts' settings as one object type (each name is in one part: checked below). */
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type Settings = Intersection<(typeof SETTINGS_PARTS)[number]['settings']>;

/** Every setting: name → parser, default, one-line meaning. The README's tables mirror this (a test checks it). */
export const SETTINGS: Settings = (() => {
  const all: Record<string, Setting<unknown>> = {};
  for (const part of SETTINGS_PARTS) {
    for (const [name, setting] of Object.entries(part.settings)) {
      if (name in all) throw new Error(`${name}: a setting of two parts (${part.room}/settings.ts and another)`);
      all[name] = setting;
    }
  }
  return all as Settings;
})();

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
  if (c.WEBHOOK_RETRY_MAX_MS < c.WEBHOOK_RETRY_FIRST_MS) throw new ConfigError(`WEBHOOK_RETRY_MAX_MS: must be at least WEBHOOK_RETRY_FIRST_MS (${c.WEBHOOK_RETRY_FIRST_MS})`);
  if (c.USE_BACKEND && !c.BACKEND_URL) throw new ConfigError('BACKEND_URL: required when USE_BACKEND=true');
  return c;
}
