// Ingestion's settings: which clients may log on, how large a payload may be, and each socket's
// budget (docs/reliability.md: budgets, caps, timeouts).
import semver from 'semver';
import { bool, fail, int, type Parser, part, s } from '../base/settings-kit.js';

const semverRange: Parser<string> = (raw, name) => (semver.validRange(raw) ? raw : fail(name, raw, 'a semver range such as ">=0.3.0 <0.4.0"'));

export const INGEST_SETTINGS = part('ingest', 'Ingestion: observer and auxiliary clients', {
  COMPATIBLE_CLIENT_RANGE: s(semverRange, '>=0.3.0 <0.4.0', 'semver range of accepted observer/auxiliary client versions'),
  AUX_CLIENTS_ENABLED: s(bool, true, 'false refuses every auxiliary (player) client logon'),
  MAX_PAYLOAD_BYTES: s(int(1024, 16 * 1_048_576), 65_536, 'largest obs_logon / obs_data / aux_data payload the service takes (larger: logon refused, data dropped as too_large); real ones are a few KB'),
  INGEST_RATE_PER_SOCKET: s(int(1, 1_000_000), 200, 'messages per second one ingestion socket may send, sustained (token bucket refill); the excess waits in the socket\'s backlog (logged-on sockets, INGEST_BACKLOG_PER_SOCKET) or is shed and counted'),
  INGEST_BURST_PER_SOCKET: s(int(1, 1_000_000), 100, 'burst one ingestion socket may send above its rate (token bucket size)'),
  // Sized for a client's catch-up after an outage of RECOVERY_WINDOW_MS (180 s) at the observer's peak rate (20 msg/s): docs/reliability.md.
  INGEST_BACKLOG_PER_SOCKET: s(int(0, 1_000_000), 3600, 'messages of a logged-on ingestion socket that wait for budget instead of being shed (a client flushing what it buffered while disconnected), forwarded in order at INGEST_RATE_PER_SOCKET; 0 = shed at once. Raise it with RECOVERY_WINDOW_MS'),
  INGEST_BACKLOG_BYTES_PER_SOCKET: s(int(0, 1_073_741_824), 2_097_152, 'most characters of payload waiting in one socket\'s backlog (a payload that is not a string counts as MAX_MESSAGE_BYTES)'),
});
