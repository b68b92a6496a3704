// The previews' and team info's settings: lifetimes and the previews' caps.
import { int, part, s } from '../base/settings-kit.js';

export const PREVIEW_SETTINGS = part('previews', 'Previews and team info', {
  PREVIEW_TTL_MS: s(int(1, 86_400_000), 600_000, 'preview lifetime from creation'),
  PREVIEW_MAX: s(int(1, 10_000_000), 10_000, 'most previews stored at once (503 above)'),
  PREVIEW_MAX_BYTES: s(int(1_048_576, 17_179_869_184), 268_435_456, 'most bytes all stored previews may hold together (their JSON text; 503 above): the count alone would allow PREVIEW_MAX × MAX_BODY_BYTES'),
  TEAM_INFO_TTL_MS: s(int(1, 604_800_000), 3_600_000, 'team info lifetime'),
  TEAM_INFO_CLEANUP_MS: s(int(10, 86_400_000), 300_000, 'interval of the team info cleanup'),
});
