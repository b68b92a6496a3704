// The standby observer's settings and the links' health (docs/reliability.md, "A standby observer";
// measured gaps: bench/observer-gaps.ts).
import { int, part, s } from '../base/settings-kit.js';

export const STANDBY_SETTINGS = part('standby', 'Standby observer and link health', {
  STANDBY_ARM_WINDOW_MS: s(int(1000, 86_400_000), 600_000, 'how long an armed standby window (POST /admin/matches/:groupCode/standby) admits one more observer logon of the match\'s organisation as its standby'),
  FAILOVER_SILENCE_MS: s(int(500, 600_000), 3000, 'the standby becomes the primary when the primary has sent nothing for this long since the standby sent data the primary did not (or since its socket closed)'),
  FAILOVER_HOLD_DOWN_MS: s(int(0, 3_600_000), 30_000, 'after a failover or a manual swap, no automatic failover of that match for this long (no flapping); a manual swap is never held down'),
  OBSERVER_SILENT_MS: s(int(1000, 3_600_000), 75_000, 'a match whose primary observer has sent nothing for this long during a live round is flagged silent (dashboard, ods_matches_observer_silent); above the longest gap of a healthy observer (67 s, combat)'),
});
