// The REST listener's settings.
import { int, part, s } from '../base/settings-kit.js';

export const REST_SETTINGS = part('rest', 'REST API', {
  MAX_BODY_BYTES: s(int(1_048_576, 64 * 1_048_576), 1_048_576, 'largest accepted REST request body (413 above)'),
  FEEDS_FINAL_HOLD_MS: s(int(0, 86_400_000), 900_000, 'GET /feeds answers with a match\'s final state for this long after it ended (then, for a scheduled code, with the fixture\'s teams; else 404); 0: 404 at once'),
});
