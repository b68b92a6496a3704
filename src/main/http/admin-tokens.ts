// ADMIN_TOKEN: the operator tokens of /admin/* and /dashboard. One or more `[id:]token` entries,
// comma-separated (parsed and validated once, by admin/settings.ts at start; only their digests are kept here). A
// request presents a token as `Authorization: Bearer <token>`; the dashboard's read-only routes also
// take HTTP Basic with the token as the password, so that a browser can open the page (it prompts
// once and then sends it with the event stream).
// Tokens are compared in constant time: the SHA-256 of the presented token against every
// configured digest, without an early exit. Logs name the token by its id, never the token.
import type { AdminTokenEntry } from '../base/config.js';
import { digestEquals, sha256 } from '../base/hashing.js';
import { MAX_ADMIN_TOKEN_LENGTH } from '../base/limits.js';

interface AdminToken { id: string; digest: Buffer }

export interface AdminTokens {
  /** False when ADMIN_TOKEN is unset: then every admin route answers 404. */
  readonly enabled: boolean;
  /** The id of the token in the Authorization header, or null. `basic` also accepts HTTP Basic (password = token). */
  identify(authorization: string, options?: { basic?: boolean }): string | null;
}

export function createAdminTokens(entries: readonly AdminTokenEntry[]): AdminTokens {
  const tokens: AdminToken[] = entries.map((e) => ({ id: e.id, digest: sha256(e.token) }));

  function match(candidate: string): string | null {
    if (candidate.length === 0 || candidate.length > MAX_ADMIN_TOKEN_LENGTH) return null;
    const digest = sha256(candidate);
    let found: string | null = null;
    for (const t of tokens) if (digestEquals(t.digest, digest) && found === null) found = t.id;
    return found;
  }

  return {
    enabled: tokens.length > 0,
    identify(authorization, options = {}) {
      const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
      if (bearer) return match(bearer[1]);
      if (options.basic) {
        const basic = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(authorization);
        if (!basic) return null;
        const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        return colon >= 0 ? match(decoded.slice(colon + 1)) : null;
      }
      return null;
    },
  };
}
