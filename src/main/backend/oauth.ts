// OAuth code exchange with the identity provider (Discord): POST the code to the token endpoint
// (form-encoded), then read the user at the user-info endpoint. Secrets and tokens never reach
// the log; failures map to the statuses of the callback route.
import type { Config } from '../base/config.js';
import type { Logger } from '../base/log.js';
import type { Outbound, OutboundError } from './http.js';

export interface OAuthUser {
  id: string;
  username: string;
  globalName: string | null;
  avatar: string | null;
}

export type OAuthResult =
  | { ok: true; user: OAuthUser }
  | { ok: false; status: 400 | 500 | 502; error: string };

type OAuthConfig = Pick<Config, 'DISCORD_CLIENT_ID' | 'DISCORD_CLIENT_SECRET' | 'DISCORD_REDIRECT_URI' | 'DISCORD_OAUTH_URL' | 'DISCORD_USER_URL' | 'OUTBOUND_TIMEOUT_MS'>;

const unreachable: OAuthResult = { ok: false, status: 502, error: 'Authorization provider unreachable' };
const internal: OAuthResult = { ok: false, status: 500, error: 'Internal server error' };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

export async function exchangeOAuthCode(config: OAuthConfig, parentLog: Logger, code: string, requestJson: Outbound): Promise<OAuthResult> {
  const log = parentLog.child({ module: 'oauth' });
  const form = new URLSearchParams({
    client_id: config.DISCORD_CLIENT_ID,
    client_secret: config.DISCORD_CLIENT_SECRET,
    grant_type: 'authorization_code',
    code,
    redirect_uri: config.DISCORD_REDIRECT_URI,
  });

  let token: { status: number; body: unknown };
  try {
    token = await requestJson(config.DISCORD_OAUTH_URL, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form,
      timeoutMs: config.OUTBOUND_TIMEOUT_MS,
      label: 'oauth_token',
    });
  } catch (err) {
    log.warn({ err: (err as Error).message, kind: (err as OutboundError).kind }, 'OAuth token endpoint unreachable');
    return unreachable;
  }
  if (token.status >= 400 && token.status <= 499) {
    // 400 invalid_grant is a user's stale code; 401 invalid_client is our configuration.
    if (token.status === 401) log.error({ status: token.status }, 'OAuth token endpoint refused the client credentials');
    else log.info({ status: token.status }, 'OAuth token endpoint refused the authorization code');
    return { ok: false, status: 400, error: 'Invalid or expired authorization code' };
  }
  if (token.status !== 200) {
    log.error({ status: token.status }, 'OAuth token endpoint answered an unexpected status');
    return { ok: false, status: 502, error: 'Authorization provider error' };
  }
  const grant = token.body;
  if (!isObject(grant) || !nonEmpty(grant.access_token) || !nonEmpty(grant.token_type) || !/^[A-Za-z][A-Za-z0-9_-]*$/.test(grant.token_type)) {
    log.error('OAuth token endpoint answered without a usable token');
    return internal;
  }

  let user: { status: number; body: unknown };
  try {
    user = await requestJson(config.DISCORD_USER_URL, {
      headers: { Authorization: `${grant.token_type} ${grant.access_token}` },
      timeoutMs: config.OUTBOUND_TIMEOUT_MS,
      label: 'oauth_user',
    });
  } catch (err) {
    log.warn({ err: (err as Error).message, kind: (err as OutboundError).kind }, 'OAuth user-info endpoint unreachable');
    return unreachable;
  }
  if (user.status !== 200) {
    log.error({ status: user.status }, 'failed to fetch OAuth user data');
    return { ok: false, status: 502, error: 'Failed to fetch user data' };
  }
  const u = user.body;
  const id = isObject(u) && (typeof u.id === 'string' || typeof u.id === 'number') ? String(u.id) : '';
  if (!isObject(u) || !id || !nonEmpty(u.username)) {
    log.error('OAuth user-info endpoint answered without a user id or name');
    return internal;
  }
  log.info({ userId: id }, 'OAuth login completed');
  return {
    ok: true,
    user: {
      id,
      username: u.username,
      globalName: nonEmpty(u.global_name) ? u.global_name : null,
      avatar: nonEmpty(u.avatar) ? u.avatar : null,
    },
  };
}
