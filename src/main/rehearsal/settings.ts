// Replays and rehearsals (README, "Rehearsals"): recording every match, the recorded clock, a
// rehearsal's length and upload.
import { bool, int, part, s, str } from '../base/settings-kit.js';

export const REPLAY_SETTINGS = part('rehearsal', 'Replays and rehearsals', {
  RECORD_REPLAYS: s(bool, false, 'record every match to REPLAY_DIR'),
  REPLAY_DIR: s(str, './replays', 'where replay files go'),
  TRUST_REPLAY_TIMESTAMPS: s(bool, false, 'replays and tests only: the recorded timestamp of each message drives the match clock'),
  REHEARSAL_MAX_MS: s(int(10_000, 86_400_000), 7_200_000, 'a rehearsal (README, "Rehearsals") ends by itself after this long, looping or not'),
  REHEARSAL_MAX_UPLOAD_BYTES: s(int(65_536, 268_435_456), 16_777_216, 'largest replay file a rehearsal may be given (its text; 413 above)'),
});
