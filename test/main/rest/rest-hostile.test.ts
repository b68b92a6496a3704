// Bad requests on the REST API (issue: hardening): every endpoint with wrong methods, missing,
// duplicated and oversize query values, malformed and oversize bodies, wrong content types, path
// tricks (dot segments, encoded characters, very long paths). Each gets a 4xx `{ error }` with the
// CORS header, never a 500, never a hang; the service answers normally afterwards. Requests are
// sent with node:http so paths go out as written (fetch would resolve `..` itself).
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend, type FakeBackend } from '../../helpers/backends.js';
import { startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
let be: FakeBackend;
beforeAll(async () => {
  be = await startBackend((req) => {
    if (req.path.startsWith('/oauth/token')) return { status: 400, json: { error: 'invalid_grant' } };
    if (req.path.startsWith('/store/')) return { status: 200, json: { data: [] } };
    return { status: 401, json: {} };
  });
  svc = await startTestService({
    AUTH_KEY: 'rest-hostile-key', USE_BACKEND: 'true', BACKEND_URL: be.url, TEBEX_BASE_URL: `${be.url}/store`, TEBEX_STORE_ID: 's', TEBEX_EXTENSION_ID: 'e',
    DISCORD_OAUTH_URL: `${be.url}/oauth/token`, DISCORD_USER_URL: `${be.url}/oauth/user`, OUTBOUND_TIMEOUT_MS: '1000', ADMIN_TOKEN: 'admin:0123456789abcdef0123456789',
  });
});
afterAll(async () => {
  await svc?.close();
  await be?.close();
});

interface Answer { status: number; cors: string | undefined; type: string; body: string }

function raw(method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  const port = Number(new URL(svc.rest).port);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) }, timeout: 15_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, cors: res.headers['access-control-allow-origin'] as string | undefined, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString() }));
    });
    req.on('timeout', () => { req.destroy(); reject(new Error(`no answer within 15 s: ${method} ${path.slice(0, 80)}`)); });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** A 4xx with the CORS header and an `{ error }` body (GET /getOrgForKey's 401 is plain text by the spec). */
function expectRefusal(a: Answer, what: string): void {
  expect(a.status, what).toBeGreaterThanOrEqual(400);
  expect(a.status, what).toBeLessThan(500);
  expect(a.cors, what).toBe('*');
  if (a.status === 401 && a.type.startsWith('text/plain')) return expect(a.body, what).toBe('401 Unauthorized');
  expect(a.type, what).toMatch(/^application\/json/);
  expect(typeof (JSON.parse(a.body) as { error?: unknown }).error, what).toBe('string');
}

const ENDPOINTS = ['/status', '/createPreview', '/preview/ABCDEF', '/getOrgForKey?key=k', '/getTeamInfoForCode?groupCode=ABCDEF', '/getSupportPackages', '/client/oauth-callback?code=c', '/match/ABCDEF', '/schema/match_data.json', '/admin/matches', '/dashboard'];
const GET_ONLY = new Set(ENDPOINTS.filter((e) => e !== '/createPreview'));

describe('hostile REST requests', () => {
  it('wrong methods on every endpoint', async () => {
    for (const endpoint of ENDPOINTS) {
      for (const method of ['POST', 'DELETE', 'PATCH', ...(GET_ONLY.has(endpoint) ? ['PUT'] : ['GET'])]) {
        if (endpoint.startsWith('/admin/') && method === 'POST') continue; // admin POST routes exist (issue 6)
        expectRefusal(await raw(method, endpoint, method === 'GET' ? undefined : '{}'), `${method} ${endpoint}`);
      }
    }
  });

  it('missing, empty, duplicated, malformed and oversize query values', async () => {
    const cases = [
      '/getOrgForKey', '/getOrgForKey?key=', '/getOrgForKey?key=%ZZ', '/getOrgForKey?key=a&key=b', `/getOrgForKey?key=${'k'.repeat(7000)}`,
      '/getTeamInfoForCode', '/getTeamInfoForCode?groupCode=', '/getTeamInfoForCode?groupCode=%ZZ%', '/getTeamInfoForCode?groupCode=A&groupCode=B',
      `/getTeamInfoForCode?groupCode=${'A'.repeat(7000)}`, `/getTeamInfoForCode?groupCode=${'A'.repeat(20_000)}`, '/getTeamInfoForCode?groupCode[]=x',
      '/client/oauth-callback', '/client/oauth-callback?code=', '/client/oauth-callback?code=%00%01', `/client/oauth-callback?code=${'c'.repeat(5000)}`,
      '/preview/', '/preview', '/preview/ABC', '/preview/ABCDEFG', '/preview/%ZZ%ZZ%ZZ', '/preview/ABCDE%00', '/match/', '/match/%ZZ', `/match/${'M'.repeat(9000)}`,
      '/status?x=' + 'y'.repeat(9000),
    ];
    for (const path of cases) {
      const a = await raw('GET', path);
      if (a.status === 200) continue; // /status with a long-but-allowed query: fine
      expectRefusal(a, `GET ${path.slice(0, 80)}`);
    }
  });

  it('path tricks: dot segments, encoded separators, very long paths, odd characters', async () => {
    const cases = [
      '/preview/../status', '/preview/..%2Fstatus', '/preview/%2e%2e/status', '/preview/%2E%2E%2Fstatus', '/getTeamInfoForCode/../status', '/./status/..',
      '/status%2F', '//status', '/STATUS', '/status/', '/preview//ABCDEF', '/%00', '/%', '/admin/../status',
      `/${'a'.repeat(9000)}`, `/${'a/'.repeat(4000)}`, `/preview/${'%41'.repeat(3000)}`, '/schema/../../etc/passwd', '/schema/match_data.json/..',
    ];
    for (const path of cases) {
      const a = await raw('GET', path);
      if (a.status === 200 && (path === '/status/' || path === '//status')) continue; // uWS may treat these as /status
      expectRefusal(a, `GET ${path.slice(0, 80)}`);
    }
    // Beyond uWS's own header limit (64 KiB): refused by uWS itself, still a 4xx and no hang.
    const huge = await raw('GET', `/status?x=${'y'.repeat(70_000)}`);
    expect(huge.status).toBe(431);
  });

  it('malformed, oversize and wrongly typed bodies', async () => {
    const bodies: [string | Buffer, Record<string, string>][] = [
      ['', { 'content-type': 'application/json' }],
      ['{', { 'content-type': 'application/json' }],
      ['null', { 'content-type': 'application/json' }],
      ['[]', { 'content-type': 'application/json' }],
      ['"string"', { 'content-type': 'application/json' }],
      ['{"key":null}', { 'content-type': 'application/json' }],
      ['{"key":"rest-hostile-key","leftTeam":5,"rightTeam":{}}', { 'content-type': 'application/json' }],
      ['{"key":"rest-hostile-key","leftTeam":{},"rightTeam":{},"toolsData":"x"}', { 'content-type': 'application/json' }],
      ['{"key":"rest-hostile-key","__proto__":{"polluted":1},"leftTeam":{},"rightTeam":[]}', { 'content-type': 'application/json' }],
      [JSON.stringify({ key: 'wrong', leftTeam: {}, rightTeam: {} }), { 'content-type': 'application/json' }],
      ['key=rest-hostile-key&leftTeam=x', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['--b\r\nContent-Disposition: form-data; name="key"\r\n\r\nx\r\n--b--', { 'content-type': 'multipart/form-data; boundary=b' }],
      [Buffer.from([0xff, 0xfe, 0x00, 0x7b]), { 'content-type': 'application/octet-stream' }],
      ['{"key":"' + 'k'.repeat(1_100_000) + '"}', { 'content-type': 'application/json' }],
      ['[' + '['.repeat(100_000), { 'content-type': 'application/json' }],
    ];
    for (const [body, headers] of bodies) {
      expectRefusal(await raw('PUT', '/createPreview', body, headers), `PUT /createPreview ${String(body).slice(0, 60)}`);
    }
    // A declared length above the limit is refused before the body is read.
    const declared = await new Promise<Answer>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: Number(new URL(svc.rest).port), method: 'PUT', path: '/createPreview', headers: { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, cors: res.headers['access-control-allow-origin'] as string, type: String(res.headers['content-type']), body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.write('{"key":');
    });
    expectRefusal(declared, 'declared 50 MB');
    expect(declared.status).toBe(413);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers normally afterwards', async () => {
    const a = await raw('GET', '/status');
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body)).toMatchObject({ status: 'UP' });
    expect(svc.logs.filter((l) => l.includes('request handler failed'))).toEqual([]);
  });
});
