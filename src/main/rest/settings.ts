// The REST listener's settings.
import { int, part, s } from '../base/settings-kit.js';

export const REST_SETTINGS = part('rest', 'REST API', {
  MAX_BODY_BYTES: s(int(1_048_576, 64 * 1_048_576), 1_048_576, 'largest accepted REST request body (413 above)'),
});
