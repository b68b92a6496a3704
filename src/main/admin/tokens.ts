// ADMIN_TOKEN: the operator tokens of /admin/* and /dashboard. One or more `[id:]token` entries,
// comma-separated (validated in config.ts). A request presents a token as `Authorization: Bearer
// <token>`; the dashboard's read-only routes also take HTTP Basic with the token as the password,
// so that a browser can open the page (it prompts once and then sends it with the event stream).
// Tokens are compared in constant time: the SHA-256 of the presented token against every
// configured digest, without an early exit. Logs name the token by its id, never the token.
import { digestEquals, sha256 } from '../hashing.js';

interface AdminToken { id: string; digest: Buffer }

export interface AdminTokens {
  /** False when ADMIN_TOKEN is unset: then every admin route answers 404. */
  readonly enabled: boolean;
  /** The id of the token in the Authorization header, or null. `basic` also accepts HTTP Basic (password = token). */
  identify(authorization: string, options?: { basic?: boolean }): string | null;
}

/** An unnamed token's id: `token-` and the first 8 hex digits of its SHA-256 (enough to tell tokens apart in logs). */
export const defaultTokenId = (token: string): string => `token-${sha256(token).toString('hex').slice(0, 8)}`;

export function parseAdminTokens(raw: string): AdminTokens {
  const tokens: AdminToken[] = [];
  for (const entry of raw.split(',')) {
    const e = entry.trim();
    if (!e) continue;
    const colon = e.indexOf(':');
    const token = colon > 0 ? e.slice(colon + 1) : e;
    tokens.push({ id: colon > 0 ? e.slice(0, colon) : defaultTokenId(token), digest: sha256(token) });
  }

  function match(candidate: string): string | null {
    if (candidate.length === 0 || candidate.length > 1024) return null;
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
