// Which live matches are rehearsals (README, "Rehearsals"): their directory record's key id is
// `rehearsal:<admin token id>`. The key id already travels with every record in every adapter
// (memory, STATE_DIR, Redis), and a real key id is `key:<digest>` or `org:<id>`, so the mark needs
// no new field in the ports; rehearsals count against MAX_MATCHES_PER_KEY per admin token.
import type { DirectoryRecord } from './match-directory.js';

export const REHEARSAL_KEY_PREFIX = 'rehearsal:';

export function isRehearsal(record: Pick<DirectoryRecord, 'keyId'> | undefined): boolean {
  return record !== undefined && record.keyId.startsWith(REHEARSAL_KEY_PREFIX);
}
