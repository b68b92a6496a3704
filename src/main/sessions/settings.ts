// Sessions' settings: how long an ingestion session may be resumed, the group secret's length, and
// how a session lookup Redis did not answer is retried (docs/reliability.md).
import { int, part, s } from '../base/settings-kit.js';

export const SESSION_SETTINGS = part('sessions', 'Sessions: resumption and the group secret', {
  RECOVERY_WINDOW_MS: s(int(120_000, 3_600_000), 180_000, 'ingestion session resumption window'),
  GROUP_SECRET_LENGTH: s(int(12, 128), 16, 'length of the group secret'),
  SESSION_LOOKUP_RETRY_MS: s(int(10, 10_000), 250, 'an ingestion session lookup that Redis did not answer (unreachable, a failover under way) is asked again after this, doubling up to 2 s, while the socket\'s messages are held (at most INGEST_BACKLOG_PER_SOCKET)'),
  SESSION_LOOKUP_DEADLINE_MS: s(int(1000, 600_000), 15_000, 'a reconnected ingestion socket whose session lookup Redis has not answered this long after its connection (or whose held messages are full) has its transport closed: the client reconnects by itself and its session is looked up again, its held messages first'),
});
