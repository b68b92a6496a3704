// The admin API's and the operator dashboard's settings (README, "Operator dashboard and admin API").
import { sha256Hex } from '../base/hashing.js';
import { ConfigError, int, type Parser, part, s } from '../base/settings-kit.js';

/** One operator token of ADMIN_TOKEN: its id (named, or `token-` and 8 hex digits of its digest) and the token. */
export interface AdminTokenEntry { id: string; token: string }

/** An unnamed token's id: `token-` and the first 8 hex digits of its SHA-256 (enough to tell tokens apart in logs). */
export const defaultTokenId = (token: string): string => `token-${sha256Hex(token).slice(0, 8)}`;

/**
 * Admin tokens: `[id:]token` entries separated by commas, parsed here once (http/admin-tokens.ts keeps
 * their digests). The error never echoes the value (it is a secret).
 */
const adminTokens: Parser<readonly AdminTokenEntry[]> = (raw, name) => {
  const ids = new Set<string>();
  const out: AdminTokenEntry[] = [];
  for (const entry of raw.split(',')) {
    const e = entry.trim();
    const colon = e.indexOf(':');
    const id = colon > 0 ? e.slice(0, colon) : '';
    const token = colon > 0 ? e.slice(colon + 1) : e;
    if (token.length < 16 || /[\s,]/.test(token)) throw new ConfigError(`${name}: every token must be at least 16 characters without spaces or commas (value not shown)`);
    if (id && !/^[A-Za-z0-9_.-]{1,64}$/.test(id)) throw new ConfigError(`${name}: a token id (before ':') must be 1–64 of A–Z a–z 0–9 _ . - (value not shown)`);
    if (id && ids.has(id)) throw new ConfigError(`${name}: token id ${id} is used twice`);
    if (id) ids.add(id);
    out.push({ id: id || defaultTokenId(token), token });
  }
  return out;
};

export const ADMIN_SETTINGS = part('admin', 'Admin API and operator dashboard', {
  ADMIN_TOKEN: s(adminTokens, [] as readonly AdminTokenEntry[], 'admin token(s) for /admin/* and /dashboard, comma-separated, each `[id:]token` (≥ 16 chars); unset: those routes answer 404 (but for the reads of EVENTS_READ_TOKEN)'),
  DASHBOARD_MAX_OPEN: s(int(1, 1000), 32, 'most operator dashboards open at once (each is one streamed HTTP response; 503 above)'),
});
