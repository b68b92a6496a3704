// The matches' settings: how many may be live, when an idle one is removed, and what lets a match
// survive a restart or a takeover (STATE_DIR, the input log, snapshots).
import { bool, int, part, s, str } from '../base/settings-kit.js';

export const MATCH_SETTINGS = part('matches', 'Matches: admission, lifetime, crash recovery', {
  MAX_LIVE_MATCHES: s(int(1, 1_000_000), 1000, 'most live matches at once; a new match past it is refused with an ack reason'),
  MAX_MATCHES_PER_KEY: s(int(1, 1_000_000), 250, 'most live matches created with one access key (one organisation with the backend)'),
  INACTIVITY_TIMEOUT_MS: s(int(1, 86_400_000), 1_800_000, 'a match with no new event for this long is removed'),
  STATE_DIR: s(str, '', 'directory for live-match snapshots and the resumable-session table; set: matches survive a restart. Unset: nothing is written'),
  INPUT_LOG: s(bool, true, 'with STATE_DIR or REDIS_URL, keep every observer and auxiliary payload a match is given until a stored snapshot holds it (in STATE_DIR/inputs or a Redis stream per match), so a match rebuilt after a kill or a takeover gets them again; false: a rebuilt match loses what came after its last snapshot'),
  SNAPSHOT_INTERVAL_MS: s(int(100, 600_000), 1000, 'how often each shard snapshots the matches that changed (crash recovery; written to STATE_DIR when set)'),
});
