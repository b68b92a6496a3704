// GET /client/oauth-callback?code= (only when USE_BACKEND=true; docs/interface.md 4.7).
// Success is an HTML page: the user's display name, a redirect to the client's deeplink after
// 2 seconds (meta refresh: no script at all), and a button with the same link. Every value from
// the provider is URL-encoded into the link and HTML-escaped into the page.
import { exchangeOAuthCode, type OAuthUser } from './oauth.js';
import type { Outbound } from './http.js';
import type { Config } from '../base/config.js';
import type { Logger } from '../base/log.js';
import { queryParam, type Router } from '../http/router.js';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => HTML_ESCAPES[c]);
}

/** encodeURIComponent, plus the characters it leaves alone that mean something in a refresh header or a quoted context. */
export function encodeQueryValue(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function deeplinkFor(base: string, user: OAuthUser): string {
  const separator = base.includes('?') ? '&' : '?';
  return `${base}${separator}userId=${encodeQueryValue(user.id)}&username=${encodeQueryValue(user.username)}&avatar=${encodeQueryValue(user.avatar ?? '')}`;
}

export function successPage(displayName: string, link: string): string {
  const name = escapeHtml(displayName);
  const href = escapeHtml(link);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="2;url=${href}">
<title>Login successful</title>
<style>
body { margin: 0; min-height: 100vh; display: flex; align-items: center; justify-content: center; background: #0f1923; color: #ece8e1; font-family: system-ui, sans-serif; }
main { text-align: center; padding: 2rem; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; }
a.button { display: inline-block; margin-top: 1.5rem; padding: 0.75rem 1.5rem; border-radius: 4px; background: #ff4655; color: #fff; text-decoration: none; font-weight: 600; }
</style>
</head>
<body>
<main>
<h1>Login successful</h1>
<p>Welcome, <strong>${name}</strong>! You are now logged in.</p>
<p>Returning you to Spectra Client in 2 seconds…</p>
<a class="button" href="${href}">Open Spectra Client</a>
</main>
</body>
</html>
`;
}

/** The page holds no script; nothing may be loaded, framed or referred (the URL carried a code). */
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export function registerOAuth(router: Router, config: Config, log: Logger, request: Outbound): void {
  router.get('/client/oauth-callback', async (req, reply) => {
    const code = queryParam(req, 'code');
    if (!code) return reply.error(400, 'Authorization code is required');
    const result = await exchangeOAuthCode(config, log, code, request);
    if (!result.ok) return reply.error(result.status, result.error);
    const { user } = result;
    reply.html(200, successPage(user.globalName ?? user.username, deeplinkFor(config.SPECTRA_CLIENT_DEEPLINK, user)), PAGE_HEADERS);
  });
}
