// Match events, webhooks, the live stream and match records (README, "Events, webhooks and records";
// docs/events.md).
import { bool, ConfigError, int, type Parser, part, s } from '../base/settings-kit.js';

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

export const EVENT_SETTINGS = part('events', 'Match events, webhooks and records', {
  EVENTS_ENABLED: s(bool, true, 'derive match events (webhooks, GET /events, match records); false: none are derived, stored or sent'),
  EVENTS_READ_TOKEN: s(readTokens, [] as readonly string[], 'read token(s), comma-separated (≥ 16 chars each): GET /events, the match records and the dead letters, nothing else (README, "Read token"); unset: GET /events answers 404'),
  EVENTS_RESUME_WINDOW_MS: s(int(10_000, 86_400_000), 600_000, 'GET /events: a reconnecting client gets the events it missed (Last-Event-ID) when they are at most this old'),
  EVENTS_RETENTION_MS: s(int(60_000, 31_536_000_000), 604_800_000, 'how long match events and records are kept (in the `events` folder of STATE_DIR, else DATA_DIR; with REDIS_URL in Redis, records and dead letters only there) after they were written'),
  EVENTS_MAX_STREAMS: s(int(1, 10_000), 100, 'most GET /events streams open at once (503 above)'),
  WEBHOOKS: s(jsonArray, [] as readonly unknown[], 'webhook endpoints, a JSON array of { id, url, secret, events?, organizations?, groupCodes?, batch? } (README, "Webhooks"); more through the admin API'),
  WEBHOOK_RETRY_FOR_MS: s(int(1000, 604_800_000), 3_600_000, 'a webhook delivery that keeps failing is retried (WEBHOOK_RETRY_FIRST_MS doubling up to WEBHOOK_RETRY_MAX_MS between attempts) for this long, then dead-lettered'),
  WEBHOOK_RETRY_FIRST_MS: s(int(100, 60_000), 1000, 'an endpoint whose delivery failed is tried again after this long, the wait doubling with each failure in a row'),
  WEBHOOK_RETRY_MAX_MS: s(int(100, 3_600_000), 30_000, 'the longest wait between a failing endpoint\'s attempts (at least WEBHOOK_RETRY_FIRST_MS)'),
});
