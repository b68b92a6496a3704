// The key validity chain (docs/interface.md 5.2, 4.8) against real local backends: the exact
// requests the service sends, every backend answer (200/401/403/500/garbage/timeout/refused),
// the supporter check, the no-shortcut rule of /getOrgForKey, and keys kept out of the log.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { refusedUrl, startBackend, type FakeBackend } from '../../helpers/backends.js';
import { overlay, observer, type Ack } from '../../helpers/clients.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const TOKEN = 'backend-token-4f2e';
const LOCAL_KEY = 'local-key-c0ffee';
const TIMEOUT = 1000; // long enough that the backend calls that must succeed do on a loaded machine
const team = (name: string) => ({ name, tricode: 'T', url: 'https://img.example/t.png' });

/**
 * What the key validity chain says about `key`, as an observer sees it: the obs_logon ack (a valid
 * key creates a match; the refusals name the chain's reason: Invalid Key, Expired Key, Unknown
 * Error). `key: undefined` leaves the member out.
 */
let logons = 0;
async function logonWith(svc: TestService, key: unknown, groupCode = `KEYV${String(++logons).padStart(2, '0')}`): Promise<Ack> {
  const { socket, ack } = await observer(svc.ingest, { key, groupCode });
  socket.close();
  return ack;
}
const accepted = { type: 'authenticate', value: true, reason: expect.stringMatching(/^[A-Z0-9]{16}$/) };
const refused = (reason: string) => ({ type: 'authenticate', value: false, reason });

describe('key validation with the backend', () => {
  let backend: FakeBackend;
  let supporter: FakeBackend;
  let svc: TestService;

  beforeAll(async () => {
    backend = await startBackend();
    supporter = await startBackend();
    svc = await startTestService({
      USE_BACKEND: 'true',
      BACKEND_URL: backend.url,
      BACKEND_TOKEN: TOKEN,
      SUPPORTER_CHECK_URL: `${supporter.url}/check`,
      AUTH_KEY: LOCAL_KEY,
      OUTBOUND_TIMEOUT_MS: String(TIMEOUT),
    });
  });
  afterAll(async () => {
    await svc?.close();
    await backend?.close();
    await supporter?.close();
  });
  beforeEach(() => {
    backend.reset();
    supporter.reset();
    backend.handle(() => ({ status: 200, json: { id: 'org-1', name: 'Org One' } }));
    supporter.handle(() => ({ status: 200, json: { isSupporter: true } }));
  });

  const org = async (key: string) => {
    const res = await fetch(`${svc.rest}/getOrgForKey?key=${encodeURIComponent(key)}`);
    return { status: res.status, cors: res.headers.get('access-control-allow-origin'), text: await res.text() };
  };
  const preview = async (key: string) => {
    const res = await fetch(`${svc.rest}/createPreview`, { method: 'PUT', body: JSON.stringify({ key, leftTeam: team('a'), rightTeam: team('b') }) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('sends GET {BACKEND_URL}/system/validateAccessKey/<url-encoded key> with X-User-Token, then the supporter check without it', async () => {
    const key = 'k ey/with?odd#chars&..';
    expect(await org(key)).toEqual({ status: 200, cors: '*', text: JSON.stringify({ id: 'org-1', name: 'Org One', isSupporter: true }) });
    expect(backend.requests).toHaveLength(1);
    const [check] = backend.requests;
    expect(check.method).toBe('GET');
    expect(check.url).toBe('/system/validateAccessKey/k%20ey%2Fwith%3Fodd%23chars%26..');
    expect(check.headers['x-user-token']).toBe(TOKEN);
    expect(supporter.requests).toHaveLength(1);
    expect(supporter.requests[0].method).toBe('GET');
    expect(supporter.requests[0].url).toBe('/check/org-1');
    expect(supporter.requests[0].headers['x-user-token']).toBeUndefined();
  });

  it('never sends a dot-segment key to the backend (it would resolve to another path)', async () => {
    for (const key of ['..', '.']) expect((await org(key)).status).toBe(401);
    expect(backend.requests).toHaveLength(0);
  });

  it('maps the backend answers: 401 invalid, 403 expired, 500 / garbage 200 / timeout unknown: 401 on /getOrgForKey, 403 on /createPreview', async () => {
    const cases: Array<[string, Parameters<FakeBackend['handle']>[0]]> = [
      ['401', () => ({ status: 401, json: { error: 'invalid' } })],
      ['403', () => ({ status: 403, json: { error: 'expired' } })],
      ['500', () => ({ status: 500, text: 'boom' })],
      ['garbage 200', () => ({ status: 200, text: '<html>not json</html>' })],
      ['redirect', () => ({ status: 302, headers: { Location: `${supporter.url}/elsewhere` } })],
      ['dropped connection', () => ({ destroy: true })],
    ];
    for (const [label, handler] of cases) {
      backend.handle(handler);
      const a = await org('some-key');
      expect({ label, ...a }).toEqual({ label, status: 401, cors: '*', text: '401 Unauthorized' });
      const b = await preview('some-key');
      expect({ label, ...b }).toEqual({ label, status: 403, body: { error: 'Invalid or expired key' } });
    }
    expect(supporter.requests).toHaveLength(0); // only a valid key leads to the supporter check
    expect(supporter.requestsTo('/elsewhere')).toHaveLength(0); // the redirect was not followed
  });

  it('gives up on a backend that never answers after OUTBOUND_TIMEOUT_MS', async () => {
    backend.handle(() => ({ hang: true }));
    const start = performance.now();
    expect((await org('slow-key')).status).toBe(401);
    const elapsed = performance.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT - 20);
    expect(elapsed).toBeLessThan(TIMEOUT + 1500);
    expect((await preview('slow-key')).body).toEqual({ error: 'Invalid or expired key' });
  });

  it('treats every supporter-check failure as not a supporter, and the key stays valid', async () => {
    const failures: Array<Parameters<FakeBackend['handle']>[0]> = [
      () => ({ status: 500, json: { isSupporter: true } }),
      () => ({ status: 200, text: 'garbage' }),
      () => ({ status: 200, json: { isSupporter: 'yes' } }),
      () => ({ hang: true }),
    ];
    for (const failure of failures) {
      supporter.handle(failure);
      expect(await org('good-key')).toMatchObject({ status: 200, text: JSON.stringify({ id: 'org-1', name: 'Org One', isSupporter: false }) });
    }
    supporter.handle(() => ({ status: 200, json: { isSupporter: false } }));
    expect((await org('good-key')).text).toBe(JSON.stringify({ id: 'org-1', name: 'Org One', isSupporter: false }));
  });

  it('accepts the local AUTH_KEY for previews without asking the backend, but not on /getOrgForKey', async () => {
    backend.handle(() => ({ status: 401 }));
    const created = await preview(LOCAL_KEY);
    expect(created.status).toBe(200);
    expect(backend.requests).toHaveLength(0);
    expect(await org(LOCAL_KEY)).toEqual({ status: 401, cors: '*', text: '401 Unauthorized' });
    expect(backend.requests).toHaveLength(1);
  });

  it('stores the backend organization on the preview and the match; the chain\'s reasons reach the observer', async () => {
    const created = await preview('org-key-1');
    const { previewCode } = created.body as { previewCode: string };
    const read = (await (await fetch(`${svc.rest}/preview/${previewCode}`)).json()) as Record<string, unknown>;
    expect(read.organizationId).toBe('org-1');

    // A backend key: the match carries its organisation and supporter status (its name: /getOrgForKey above).
    const fe = await overlay(svc.broadcast, 'KEYORG');
    expect(await logonWith(svc, 'org-key-1', 'KEYORG')).toEqual(accepted);
    expect(await fe.waitFor((f) => f.groupCode === 'KEYORG')).toMatchObject({ organizationId: 'org-1', orgIsSupporter: true });
    fe.socket.close();
    expect(await logonWith(svc, LOCAL_KEY)).toEqual(accepted);
    backend.handle(() => ({ status: 401 }));
    expect(await logonWith(svc, 'x')).toEqual(refused('Invalid Key'));
    backend.handle(() => ({ status: 403 }));
    expect(await logonWith(svc, 'x')).toEqual(refused('Expired Key'));
    backend.handle(() => ({ status: 503 }));
    expect(await logonWith(svc, 'x')).toEqual(refused('Unknown Error'));
    // Not a key at all: invalid, without asking the backend (it would answer 503 now).
    for (const key of [undefined, null, '', 42, { key: LOCAL_KEY }]) expect(await logonWith(svc, key), JSON.stringify(key)).toEqual(refused('Invalid Key'));
    // The two matches end (the operator's force-end): the service is as before for the next test.
    for (const code of await svc.admin.codes()) expect((await svc.admin.end(code)).status).toBe(200);
  });

  it('survives clients that go away: during the key check (nothing stored) and in the middle of the body', async () => {
    backend.handle(() => ({ status: 200, delayMs: 200, json: { id: 'org-1', name: 'Org One' } }));
    const logsBefore = svc.logs.length;
    const aborted = fetch(`${svc.rest}/createPreview`, {
      method: 'PUT',
      body: JSON.stringify({ key: 'slow-valid-key', previewCode: 'GONE99', leftTeam: team('a'), rightTeam: team('b') }),
      signal: AbortSignal.timeout(50),
    });
    await expect(aborted).rejects.toThrow();
    // The key check completes after the client left (its log line), and nothing is stored.
    await expect.poll(() => svc.logs.slice(logsBefore).some((l) => l.includes('access key'))).toBe(true);
    expect(backend.requests).toHaveLength(1);
    // Nothing stored: not under its code, the only one it could have been stored under (a supplied 6-character code is used as given).
    expect((await fetch(`${svc.rest}/preview/GONE99`)).status).toBe(404);

    // Half a body, then the connection drops.
    const port = new URL(svc.rest).port;
    await new Promise<void>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'PUT', path: '/createPreview', headers: { 'Content-Length': '1000' } });
      req.on('error', () => resolve());
      req.write('{"key": "abc", "leftTeam": ', () => setTimeout(() => { req.destroy(); resolve(); }, 50));
    });
    const status = await fetch(`${svc.rest}/status`);
    expect(await status.json()).toEqual({ status: 'UP', matchesRunning: 0 });
    expect(svc.logs.join('\n')).not.toContain('request handler failed');
  });

  it('never logs a key or the backend token', () => {
    const all = svc.logs.join('\n');
    expect(all).toContain('access key verified by the backend');
    for (const secret of [TOKEN, LOCAL_KEY, 'org-key-1', 'good-key', 'some-key', 'slow-key', 'odd#chars']) expect(all).not.toContain(secret);
  });
});

describe('key validation: backend unreachable', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ USE_BACKEND: 'true', BACKEND_URL: await refusedUrl(), BACKEND_TOKEN: TOKEN, OUTBOUND_TIMEOUT_MS: String(TIMEOUT) });
  });
  afterAll(async () => svc?.close());

  it('answers at once with UNKNOWN (401 / 403) when the connection is refused; an empty effective key never matches', async () => {
    const start = performance.now();
    const res = await fetch(`${svc.rest}/getOrgForKey?key=abc`);
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('401 Unauthorized');
    const put = await fetch(`${svc.rest}/createPreview`, { method: 'PUT', body: JSON.stringify({ key: 'abc', leftTeam: team('a'), rightTeam: team('b') }) });
    expect(put.status).toBe(403);
    expect(performance.now() - start).toBeLessThan(TIMEOUT * 2);
    expect(await logonWith(svc, 'abc')).toEqual(refused('Unknown Error'));

    // USE_BACKEND without AUTH_KEY: no local key (none generated, none in use) and an empty key matches nothing.
    expect(svc.logged({ msg: 'service started' })).toEqual([expect.objectContaining({ accessKeySource: 'none' })]);
    expect(fs.existsSync(path.join(svc.dataDir, 'auth-key'))).toBe(false);
    for (const key of ['', undefined, null]) expect(await logonWith(svc, key)).toEqual(refused('Invalid Key'));
    const empty = await fetch(`${svc.rest}/createPreview`, { method: 'PUT', body: JSON.stringify({ key: '', leftTeam: team('a'), rightTeam: team('b') }) });
    expect(await empty.json()).toEqual({ error: 'Missing or invalid key in preview data' });
  });
});

describe('key validation: REQUIRE_AUTH_KEY=false and no backend', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ REQUIRE_AUTH_KEY: 'false' });
  });
  afterAll(async () => svc?.close());

  it('accepts every key for previews; /getOrgForKey still answers 401', async () => {
    const res = await fetch(`${svc.rest}/createPreview`, { method: 'PUT', body: JSON.stringify({ key: 'anything', leftTeam: team('a'), rightTeam: team('b') }) });
    expect(res.status).toBe(200);
    expect((await res.json()) as { previewCode: string }).toMatchObject({ previewCode: expect.stringMatching(/^[A-HJ-NP-Z0-9]{6}$/) });
    expect(await logonWith(svc, 'whatever')).toEqual(accepted);
    const org = await fetch(`${svc.rest}/getOrgForKey?key=anything`);
    expect(org.status).toBe(401);
    expect(await org.text()).toBe('401 Unauthorized');
  });
});

describe('key validation: local key only', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ AUTH_KEY: LOCAL_KEY });
  });
  afterAll(async () => svc?.close());

  it('accepts exactly the local key', async () => {
    expect(await logonWith(svc, LOCAL_KEY)).toEqual(accepted);
    for (const key of [LOCAL_KEY + 'x', LOCAL_KEY.slice(0, -1), LOCAL_KEY.toUpperCase(), '', undefined]) {
      expect(await logonWith(svc, key)).toEqual(refused('Invalid Key'));
    }
  });
});
