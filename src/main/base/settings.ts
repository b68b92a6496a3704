// The process's own settings: where it keeps its files, how it logs, how long an outbound HTTP call
// may take (backend and webhooks alike), how long a shutdown may take.
import { int, oneOf, part, s, str } from './settings-kit.js';

export const PROCESS_SETTINGS = part('base', 'The process: data directory, logs, outbound calls, shutdown', {
  DATA_DIR: s(str, './.data', 'where the generated certificate and access key are kept, and the operator data without REDIS_URL: the day\'s schedule (fixtures.json), the output delays (output-delays.json) and the webhook endpoints added through the admin API (webhook-endpoints.json, with their secrets, owner-only); and the linked brackets (brackets.json, with their platform tokens, owner-only)'),
  LOG_LEVEL: s(oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'), 'info', 'pino log level'),
  LOG_FORMAT: s(oneOf('json', 'pretty'), process.env.NODE_ENV === 'development' ? 'pretty' : 'json', 'json (default) or pretty (default when NODE_ENV=development)'),
  OUTBOUND_TIMEOUT_MS: s(int(100, 60_000), 5000, 'timeout of every outbound HTTP call'),
  SHUTDOWN_TIMEOUT_MS: s(int(500, 300_000), 10_000, 'SIGTERM/SIGINT: the process exits at the latest this long after the signal'),
});
