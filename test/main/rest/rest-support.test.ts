// GET /getSupportPackages and GET /client/oauth-callback (USE_BACKEND=true) against a real local
// store platform and OAuth provider: exact outbound requests, caching, every failure mapping,
// and the success page's escaping of attacker-controlled names.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { refusedUrl, startBackend, type Answer, type FakeBackend } from '../../helpers/backends.js';
import { startTestService, type TestService } from '../../helpers/service.js';

// Long enough that the calls that must succeed (one answers after 150 ms) do, and that the cache is
// still fresh for the read right after it was filled, on a loaded machine.
const TIMEOUT = 1000;
const CACHE_TTL = 1500;
const CLIENT_SECRET = 'client-secret-77aa';
const ACCESS_TOKEN = 'access-token-5b5b';

describe('support packages and OAuth with reachable providers', () => {
  let store: FakeBackend;
  let provider: FakeBackend;
  let svc: TestService;

  beforeAll(async () => {
    store = await startBackend();
    provider = await startBackend();
    svc = await startTestService({
      USE_BACKEND: 'true',
      BACKEND_URL: provider.url, // required by USE_BACKEND; not called by these routes
      TEBEX_BASE_URL: `${store.url}/api`,
      TEBEX_STORE_ID: 'store-42',
      TEBEX_EXTENSION_ID: 'ext-7',
      SUPPORT_PACKAGES_TTL_MS: String(CACHE_TTL),
      DISCORD_CLIENT_ID: 'client-id-1',
      DISCORD_CLIENT_SECRET: CLIENT_SECRET,
      DISCORD_REDIRECT_URI: 'https://extras.example/client/oauth-callback',
      DISCORD_OAUTH_URL: `${provider.url}/api/oauth2/token`,
      DISCORD_USER_URL: `${provider.url}/api/users/@me`,
      SPECTRA_CLIENT_DEEPLINK: 'spectra://client/oauth',
      OUTBOUND_TIMEOUT_MS: String(TIMEOUT),
    });
  });
  afterAll(async () => {
    await svc?.close();
    await store?.close();
    await provider?.close();
  });

  describe('GET /getSupportPackages', () => {
    const get = async () => {
      const res = await fetch(`${svc.rest}/getSupportPackages`);
      return { status: res.status, cors: res.headers.get('access-control-allow-origin'), body: (await res.json()) as unknown };
    };
    const checkout = (id: string | number) => `${store.url}/api/checkout/store-42/${id}?extensionId=ext-7`;

    it('maps failures (not cached): non-OK → 502, garbage or timeout → 500 without details', async () => {
      store.handle(() => ({ status: 503, text: 'maintenance' }));
      expect(await get()).toEqual({ status: 502, cors: '*', body: { error: 'Failed to fetch packages' } });
      store.handle(() => ({ status: 200, text: 'SECRET-INTERNAL <html>' }));
      expect(await get()).toEqual({ status: 500, cors: '*', body: { error: 'Internal server error' } });
      store.handle(() => ({ status: 200, json: { packages: 'nope' } }));
      expect(await get()).toEqual({ status: 500, cors: '*', body: { error: 'Internal server error' } });
      store.handle(() => ({ hang: true }));
      expect(await get()).toEqual({ status: 500, cors: '*', body: { error: 'Internal server error' } });
      expect(store.requests).toHaveLength(4);
      const [first] = store.requests;
      expect(first.method).toBe('GET');
      expect(first.url).toBe('/api/packages/store-42?extensionId=ext-7');
    });

    it('fetches once for concurrent callers, adds checkout URLs, caches for SUPPORT_PACKAGES_TTL_MS, then fetches again', async () => {
      store.reset();
      store.handle(() => ({ status: 200, delayMs: 150, json: { data: [{ id: 1, name: 'Gold', price: 5 }, { id: 'p-2', name: 'Silver' }] } }));
      const answers = await Promise.all([get(), get(), get(), get(), get()]);
      const expected = [
        { id: 1, name: 'Gold', price: 5, checkoutUrl: checkout(1) },
        { id: 'p-2', name: 'Silver', checkoutUrl: checkout('p-2') },
      ];
      for (const a of answers) expect(a).toEqual({ status: 200, cors: '*', body: expected });
      expect(store.requests).toHaveLength(1);

      store.handle(() => ({ status: 200, json: [{ id: 3, name: 'Bronze' }] }));
      expect((await get()).body).toEqual(expected); // still cached
      expect(store.requests).toHaveLength(1);

      // Once the cache's lifetime is over, the next request asks the store again.
      await expect.poll(get).toEqual({ status: 200, cors: '*', body: [{ id: 3, name: 'Bronze', checkoutUrl: checkout(3) }] });
      expect(store.requests).toHaveLength(2);
    });
  });

  describe('GET /client/oauth-callback', () => {
    beforeEach(() => provider.reset());

    const callback = async (query: string) => {
      const res = await fetch(`${svc.rest}/client/oauth-callback${query}`);
      return { status: res.status, type: res.headers.get('content-type'), cors: res.headers.get('access-control-allow-origin'), text: await res.text() };
    };
    const providerAnswers = (user: () => Answer) =>
      provider.handle((req) => (req.path === '/api/oauth2/token' ? { status: 200, json: { access_token: ACCESS_TOKEN, token_type: 'Bearer', expires_in: 604800 } } : user()));

    it('exchanges the code (form-encoded), reads the user with the token, and answers the page', async () => {
      providerAnswers(() => ({ status: 200, json: { id: '80351110224678912', username: 'nelly', global_name: 'Nelly', avatar: '8342729096ea3675442027381ff50dfe' } }));
      const a = await callback('?code=auth-code-1&code=second');
      expect(a.status).toBe(200);
      expect(a.type).toBe('text/html; charset=utf-8');
      expect(a.cors).toBe('*');

      const [token, user] = provider.requests;
      expect(token.method).toBe('POST');
      expect(token.path).toBe('/api/oauth2/token');
      expect(token.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(Object.fromEntries(new URLSearchParams(token.body))).toEqual({
        client_id: 'client-id-1',
        client_secret: CLIENT_SECRET,
        grant_type: 'authorization_code',
        code: 'auth-code-1',
        redirect_uri: 'https://extras.example/client/oauth-callback',
      });
      expect(user.method).toBe('GET');
      expect(user.path).toBe('/api/users/@me');
      expect(user.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);

      const link = 'spectra://client/oauth?userId=80351110224678912&amp;username=nelly&amp;avatar=8342729096ea3675442027381ff50dfe';
      expect(a.text).toContain('<strong>Nelly</strong>');
      expect(a.text).toContain(`<meta http-equiv="refresh" content="2;url=${link}">`);
      expect(a.text).toContain(`<a class="button" href="${link}">`);
      expect(a.text).not.toContain('<script');
    });

    it('escapes a malicious display name in the HTML and URL-encodes the user values in the link', async () => {
      const evil = '<script>alert(1)</script>"\'&';
      providerAnswers(() => ({ status: 200, json: { id: '1"2', username: 'bob"><script>x</script> &y=1', global_name: evil, avatar: null } }));
      const a = await callback('?code=c');
      expect(a.status).toBe(200);
      expect(a.text).not.toContain('<script');
      expect(a.text).not.toContain('alert(1)</');
      expect(a.text).toContain('<strong>&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</strong>');
      const link = 'spectra://client/oauth?userId=1%222&amp;username=bob%22%3E%3Cscript%3Ex%3C%2Fscript%3E%20%26y%3D1&amp;avatar=';
      expect(a.text).toContain(`content="2;url=${link}"`);
      expect(a.text).toContain(`href="${link}"`);
    });

    it('shows the username when there is no global name', async () => {
      providerAnswers(() => ({ status: 200, json: { id: '5', username: 'plainname', global_name: null, avatar: 'av' } }));
      const a = await callback('?code=c');
      expect(a.text).toContain('<strong>plainname</strong>');
      expect(a.text).toContain('username=plainname&amp;avatar=av');
    });

    it('maps every failure to its status and a body without internal details', async () => {
      expect(await callback('')).toEqual({ status: 400, type: 'application/json; charset=utf-8', cors: '*', text: '{"error":"Authorization code is required"}' });
      expect(await callback('?code=')).toMatchObject({ status: 400, text: '{"error":"Authorization code is required"}' });
      expect(provider.requests).toHaveLength(0);

      const cases: Array<[string, Parameters<FakeBackend['handle']>[0], number, string]> = [
        ['token 400', () => ({ status: 400, json: { error: 'invalid_grant' } }), 400, 'Invalid or expired authorization code'],
        ['token 401', () => ({ status: 401, json: { error: 'invalid_client' } }), 400, 'Invalid or expired authorization code'],
        ['token 500', () => ({ status: 500, text: 'oops' }), 502, 'Authorization provider error'],
        ['token timeout', () => ({ hang: true }), 502, 'Authorization provider unreachable'],
        ['token dropped', () => ({ destroy: true }), 502, 'Authorization provider unreachable'],
        ['token garbage', () => ({ status: 200, text: 'INTERNAL-DETAIL' }), 500, 'Internal server error'],
        ['token without access_token', () => ({ status: 200, json: { token_type: 'Bearer' } }), 500, 'Internal server error'],
        ['user 401', (r) => (r.path.endsWith('token') ? { status: 200, json: { access_token: ACCESS_TOKEN, token_type: 'Bearer' } } : { status: 401, json: {} }), 502, 'Failed to fetch user data'],
        ['user timeout', (r) => (r.path.endsWith('token') ? { status: 200, json: { access_token: ACCESS_TOKEN, token_type: 'Bearer' } } : { hang: true }), 502, 'Authorization provider unreachable'],
        ['user garbage', (r) => (r.path.endsWith('token') ? { status: 200, json: { access_token: ACCESS_TOKEN, token_type: 'Bearer' } } : { status: 200, json: { nope: true } }), 500, 'Internal server error'],
      ];
      for (const [label, handler, status, error] of cases) {
        provider.handle(handler);
        const a = await callback('?code=some-code');
        expect({ label, status: a.status, cors: a.cors, body: JSON.parse(a.text) }).toEqual({ label, status, cors: '*', body: { error } });
      }
    });

    it('never logs the client secret, the access token or the code', () => {
      const all = svc.logs.join('\n');
      expect(all).toContain('OAuth');
      for (const secret of [CLIENT_SECRET, ACCESS_TOKEN, 'auth-code-1', 'some-code']) expect(all).not.toContain(secret);
    });
  });
});

describe('support packages and OAuth with unreachable providers', () => {
  let svc: TestService;
  beforeAll(async () => {
    const down = await refusedUrl();
    svc = await startTestService({
      USE_BACKEND: 'true',
      BACKEND_URL: down,
      TEBEX_BASE_URL: down,
      TEBEX_STORE_ID: 's',
      TEBEX_EXTENSION_ID: 'e',
      DISCORD_OAUTH_URL: `${down}/token`,
      DISCORD_USER_URL: `${down}/user`,
      OUTBOUND_TIMEOUT_MS: String(TIMEOUT),
    });
  });
  afterAll(async () => svc?.close());

  it('answers 500 for the packages and 502 for the OAuth callback when the connection is refused', async () => {
    const packages = await fetch(`${svc.rest}/getSupportPackages`);
    expect(packages.status).toBe(500);
    expect(await packages.json()).toEqual({ error: 'Internal server error' });
    const oauth = await fetch(`${svc.rest}/client/oauth-callback?code=abc`);
    expect(oauth.status).toBe(502);
    expect(oauth.headers.get('access-control-allow-origin')).toBe('*');
    expect(await oauth.json()).toEqual({ error: 'Authorization provider unreachable' });
  });
});
