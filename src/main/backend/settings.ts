// The access keys (README, "Access keys file") and the vendor backend: key validation, match
// registration, supporter checks, the store's support packages, OAuth.
import { bool, fail, int, type Parser, part, s, str, url } from '../base/settings-kit.js';

/** Deeplinks use a custom scheme (e.g. spectra://), so any absolute URL is accepted. */
const anyUrl: Parser<string> = (raw, name) => {
  try { new URL(raw); } catch { fail(name, raw, 'an absolute URL'); }
  return raw;
};

export const BACKEND_SETTINGS = part('backend', 'Access keys and the vendor backend', {
  REQUIRE_AUTH_KEY: s(bool, true, 'false accepts every access key'),
  AUTH_KEY: s(str, '', 'the local access key. Unset (and no backend): one is generated into DATA_DIR on first start and printed'),
  KEYS_FILE: s(str, '', 'JSON file of access keys with their organisations (README, "Access keys file"); checked after AUTH_KEY, before the backend; reloaded on change'),
  USE_BACKEND: s(bool, false, 'true enables the vendor backend: key validation, match registration, support packages, OAuth'),
  BACKEND_URL: s(url, '', 'backend base URL (key validation, match register/update/complete)'),
  BACKEND_TOKEN: s(str, '', 'sent as X-User-Token to the backend'),
  SUPPORTER_CHECK_URL: s(url, '', 'supporter check base URL: GET {url}/{orgId} → { isSupporter }'),
  STATS_BACKEND_URL: s(url, '', 'statistics backend base URL (supporter organisations only)'),
  STATS_BACKEND_TOKEN: s(str, '', 'sent as Authentication to the statistics backend'),
  PLAYERCAM_URL: s(url, '', 'player-camera service base URL; unset: nothing is fetched'),
  TEBEX_BASE_URL: s(url, '', 'store platform base URL for GET /getSupportPackages'),
  TEBEX_STORE_ID: s(str, '', 'store id for the support packages'),
  TEBEX_EXTENSION_ID: s(str, '', 'extension id for the support packages'),
  SUPPORT_PACKAGES_TTL_MS: s(int(1, 86_400_000), 600_000, 'support package cache lifetime'),
  SPONSOR_LOGO_URL: s(str, 'https://auto.valospectra.com/assets/misc/logo.webp', 'logo appended to the sponsors of non-supporters'),
  DISCORD_CLIENT_ID: s(str, '', 'OAuth client id'),
  DISCORD_CLIENT_SECRET: s(str, '', 'OAuth client secret'),
  DISCORD_REDIRECT_URI: s(str, '', 'OAuth redirect URI sent with the code exchange'),
  DISCORD_OAUTH_URL: s(url, 'https://discord.com/api/oauth2/token', 'OAuth token endpoint'),
  DISCORD_USER_URL: s(url, 'https://discord.com/api/users/@me', 'OAuth user-info endpoint'),
  SPECTRA_CLIENT_DEEPLINK: s(anyUrl, 'spectra://client/oauth', 'deeplink the OAuth success page opens'),
});
