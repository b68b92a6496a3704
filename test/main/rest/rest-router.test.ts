// The REST router (src/main/http/router.ts) mounted alone on a real uWS app and called over real
// HTTP: every answer carries CORS; unknown routes and methods get 404 { error }; OPTIONS answers
// the preflight of the methods a path has; a URL past MAX_URL_LENGTH gets 414; bodies past the
// limit get 413 (declared or streamed) and the connection closes; a handler that throws or
// rejects gets 500 { error } and a log line, and the server goes on. Then two routes on it with
// memory stores: the preview route stores the record without the key and the player-camera
// secret, and serves it as stored; the team-info route serves the post-match members.
import http from 'node:http';
import net from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryPreviewStore } from '../../../src/main/previews/adapters/memory/preview-store.js';
import { MemoryTeamInfoStore } from '../../../src/main/previews/adapters/memory/team-info-store.js';
import type { KeyValidator, KeyValidity } from '../../../src/main/backend/key-validation.js';
import { loadConfig } from '../../../src/main/base/config.js';
import { MAX_URL_LENGTH } from '../../../src/main/base/limits.js';
import { createLogger } from '../../../src/main/base/log.js';
import { createRouter, queryParam } from '../../../src/main/http/router.js';
import { registerPreviews } from '../../../src/main/previews/rest.js';
import { registerTeamInfo } from '../../../src/main/previews/rest-team-info.js';
import { closeListen, createApp, listen, type us_listen_socket } from '../../../src/main/internals/uws.js';

const MAX_BODY = 1000;
const logs: string[] = [];
const log = createLogger(loadConfig({ LOG_LEVEL: 'info' }), new Writable({ write(chunk, _e, cb) { logs.push(...String(chunk).split('\n').filter(Boolean)); cb(); } }));
const previews = new MemoryPreviewStore({ ttlMs: 60_000, maxEntries: 100, maxBytes: 1_000_000 });
const teamInfo = new MemoryTeamInfoStore({ ttlMs: 60_000, cleanupMs: 60_000 });
const chain = (key: unknown): KeyValidity => (key === 'good-key' ? { valid: true, reason: 'VALID', message: '', organizationId: 'org-7' } : { valid: false, reason: 'INVALID', message: 'Invalid Key' });
const keys: KeyValidator = {
  validate: async (key) => chain(key),
  validateLocally: chain,
  backendLookup: async () => ({ valid: false, reason: 'INVALID', message: 'Invalid Key' }),
  orgLookup: async () => ({ valid: false, reason: 'INVALID', message: 'Invalid Key' }),
};

let port = 0;
let token: us_listen_socket;
/** When '/later' answers: on the next turn of the loop (after its handler returned), unless a test holds it. */
let whenLater: (answer: () => void) => void = (answer) => setImmediate(answer);
beforeAll(async () => {
  const app = createApp(null);
  const router = createRouter(app, log, MAX_BODY);
  router.get('/echo/:a/:b', (req, reply) => reply.json(200, { params: req.params, q: queryParam(req, 'q'), auth: req.headers.authorization, method: req.method, path: req.path }), { headers: ['authorization'] });
  router.put('/echo/:a/:b', (req, reply) => reply.json(200, { put: true, length: req.body.length }), { body: true });
  router.post('/body', (req, reply) => reply.json(200, { length: req.body.length, text: req.body.toString('utf8').slice(0, 20) }), { body: true });
  router.get('/throws', () => { throw new Error('boom'); });
  router.get('/rejects', async () => { throw new Error('async boom'); });
  router.get('/later', async (_req, reply) => { await new Promise<void>((answer) => whenLater(answer)); reply.text(200, 'later'); });
  registerPreviews(router, { store: previews, keys, log });
  registerTeamInfo(router, teamInfo);
  router.finish();
  ({ port, token } = await listen(app, '127.0.0.1', 0));
});
afterAll(() => {
  closeListen(token);
  previews.close();
  teamInfo.close();
});

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: string }

/** One request on its own connection; `chunks` are written one by one (a streamed body). */
function request(method: string, path: string, options: { headers?: Record<string, string>; body?: string; chunks?: string[] } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: options.headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (options.chunks) {
      for (const c of options.chunks) req.write(c);
      req.end();
    } else req.end(options.body);
  });
}
const json = (a: Answer) => JSON.parse(a.body) as Record<string, unknown>;

/** Raw bytes on a keep-alive connection; resolves with what came back once the server closed it (or after `ms`). */
function raw(text: string, ms = 15_000): Promise<{ response: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let response = '';
    const timer = setTimeout(() => { socket.destroy(); resolve({ response, closedByServer: false }); }, ms);
    socket.on('data', (c) => { response += c.toString('utf8'); });
    socket.on('end', () => { clearTimeout(timer); socket.destroy(); resolve({ response, closedByServer: true }); });
    socket.on('error', () => undefined);
    socket.write(text);
  });
}

describe('the REST router', () => {
  it('routes by method and pattern; parameters and query as sent; CORS on the answer', async () => {
    const a = await request('GET', '/echo/x%20y/2?q=one&q=two', { headers: { authorization: 'Bearer t' } });
    expect(a.status).toBe(200);
    expect(a.headers['access-control-allow-origin']).toBe('*');
    expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json(a)).toEqual({ params: ['x%20y', '2'], q: 'one', auth: 'Bearer t', method: 'get', path: '/echo/x%20y/2' });
  });

  it('404 { error: "Not found" } with CORS for unknown paths and for methods a path does not have', async () => {
    for (const [method, path] of [['GET', '/nope'], ['GET', '/'], ['POST', '/echo/a/b'], ['DELETE', '/echo/a/b'], ['GET', '/body'], ['PATCH', '/nope']]) {
      const a = await request(method, path);
      expect(a.status, `${method} ${path}`).toBe(404);
      expect(a.headers['access-control-allow-origin']).toBe('*');
      expect(json(a)).toEqual({ error: 'Not found' });
    }
  });

  it('answers the CORS preflight (OPTIONS) with the methods of the path; requested headers echoed when well-formed', async () => {
    const a = await request('OPTIONS', '/echo/a/b', { headers: { origin: 'https://overlay.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type, x-custom' } });
    expect(a.status).toBe(204);
    expect(a.body).toBe('');
    expect(a.headers['access-control-allow-origin']).toBe('*');
    expect(a.headers['access-control-allow-methods']).toBe('GET, PUT, OPTIONS');
    expect(a.headers['access-control-allow-headers']).toBe('content-type, x-custom');
    expect(a.headers['access-control-max-age']).toBe('86400');
    const odd = await request('OPTIONS', '/body', { headers: { 'access-control-request-headers': 'x-a;b=c' } });
    expect(odd.status).toBe(204);
    expect(odd.headers['access-control-allow-methods']).toBe('POST, OPTIONS');
    expect(odd.headers['access-control-allow-headers']).toBe('Content-Type');
    expect((await request('OPTIONS', '/nope')).status).toBe(404);
  });

  it(`414 { error } past ${MAX_URL_LENGTH} characters of path and query, on known and unknown routes`, async () => {
    const long = 'x'.repeat(MAX_URL_LENGTH);
    for (const path of [`/echo/a/b?q=${long}`, `/nope/${long}`]) {
      const a = await request('GET', path);
      expect(a.status).toBe(414);
      expect(a.headers['access-control-allow-origin']).toBe('*');
      expect(json(a)).toEqual({ error: `Request URL longer than ${MAX_URL_LENGTH} characters` });
    }
    expect((await request('GET', `/echo/a/b?q=${'x'.repeat(MAX_URL_LENGTH - 20)}`)).status).toBe(200);
  });

  it('reads a body up to the limit, whole, in one piece or streamed', async () => {
    const exact = 'b'.repeat(MAX_BODY);
    expect(json(await request('POST', '/body', { body: exact }))).toEqual({ length: MAX_BODY, text: 'b'.repeat(20) });
    expect(json(await request('POST', '/body', { chunks: ['a'.repeat(300), 'b'.repeat(300), 'c'.repeat(400)] }))).toEqual({ length: 1000, text: 'a'.repeat(20) });
    expect(json(await request('PUT', '/echo/a/b', { body: 'xyz' }))).toEqual({ put: true, length: 3 });
    expect(json(await request('POST', '/body'))).toEqual({ length: 0, text: '' });
  });

  it('413 { error } for a body past the limit, declared or streamed, and closes the connection', async () => {
    const declared = await request('POST', '/body', { body: 'x'.repeat(MAX_BODY + 1) });
    expect(declared.status).toBe(413);
    expect(declared.headers['access-control-allow-origin']).toBe('*');
    expect(json(declared)).toEqual({ error: `Request body larger than ${MAX_BODY} bytes` });
    // Answered from the declared length, before the body, and the connection closed (the rest is not wanted).
    const early = await raw(`POST /body HTTP/1.1\r\nHost: t\r\nConnection: keep-alive\r\nContent-Length: ${MAX_BODY * 10}\r\n\r\n${'x'.repeat(100)}`);
    expect(early.response).toMatch(/^HTTP\/1\.1 413 /);
    expect(early.response).toContain(`{"error":"Request body larger than ${MAX_BODY} bytes"}`);
    expect(early.closedByServer).toBe(true);
    const streamed = await request('POST', '/body', { headers: { 'transfer-encoding': 'chunked' }, chunks: ['x'.repeat(600), 'y'.repeat(600)] });
    expect(streamed.status).toBe(413);
    expect(json(streamed)).toEqual({ error: `Request body larger than ${MAX_BODY} bytes` });
  });

  it('500 { error } and a log line for a handler that throws or rejects; the server goes on', async () => {
    for (const path of ['/throws', '/rejects']) {
      const a = await request('GET', path);
      expect(a.status).toBe(500);
      expect(a.headers['access-control-allow-origin']).toBe('*');
      expect(json(a)).toEqual({ error: 'Internal server error' });
    }
    const failures = logs.map((l) => JSON.parse(l) as { msg?: string; path?: string }).filter((j) => j.msg === 'request handler failed');
    expect(failures.map((j) => j.path)).toEqual(['/throws', '/rejects']);
    expect((await request('GET', '/later')).body).toBe('later');
  });

  it('a client that leaves before a late answer does not break the server', async () => {
    // The answer is held until the client has gone.
    let answerLate: () => void = () => undefined;
    const entered = new Promise<void>((resolve) => { whenLater = (answer) => { answerLate = answer; resolve(); }; });
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: '/later', agent: false });
    const closed = new Promise<void>((resolve) => { req.on('error', () => resolve()); req.on('close', () => resolve()); });
    req.end();
    await entered;
    req.destroy();
    await closed;
    whenLater = (answer) => setImmediate(answer);
    // The marker that the server took the client's leaving in: a request on a new connection, sent
    // after the close, answered.
    expect((await request('GET', '/echo/a/b')).status).toBe(200);
    answerLate(); // the late answer, to a client that left
    // The same route answers the next request after it.
    expect((await request('GET', '/later')).body).toBe('later');
    expect(logs.filter((l) => l.includes('request handler failed'))).toHaveLength(2); // the two above only
  });
});

describe('routes on the router, with memory stores', () => {
  it('PUT /createPreview stores the record without the key and the player-camera secret; GET serves the stored text itself', async () => {
    const request_ = {
      key: 'good-key', previewCode: 'PRV001', leftTeam: { name: 'A', tricode: 'A', url: '' }, rightTeam: { name: 'B', tricode: 'B', url: '' },
      toolsData: { playercamsInfo: { enable: true, identifier: 'cam-id', secret: 'cam-secret-1', endTime: 5 } },
    };
    const created = await request('PUT', '/createPreview', { body: JSON.stringify(request_) });
    expect(created.status).toBe(200);
    expect(json(created)).toEqual({ previewCode: 'PRV001' });
    const stored = await previews.get('PRV001');
    expect(stored).toBeDefined();
    expect(stored).not.toContain('good-key');
    expect(stored).not.toContain('cam-secret-1');
    expect(JSON.parse(stored!)).toEqual({
      previewCode: 'PRV001', organizationId: 'org-7', leftTeam: request_.leftTeam, rightTeam: request_.rightTeam,
      toolsData: { playercamsInfo: { enable: true, identifier: 'cam-id', endTime: 5 } },
    });
    const read = await request('GET', '/preview/PRV001');
    expect(read.body).toBe(stored);
    expect((await request('PUT', '/createPreview', { body: JSON.stringify({ ...request_, key: 'bad', previewCode: 'PRV002' }) })).status).toBe(403);
    expect(await previews.get('PRV002')).toBeUndefined();
  });

  it('GET /getTeamInfoForCode serves the teams, then the post-match members once the match ended', async () => {
    const leftTeam = { name: 'L', tricode: 'L', url: '', attackStart: true };
    const rightTeam = { name: 'R', tricode: 'R', url: '', attackStart: false };
    await teamInfo.set('GRP123', { leftTeam, rightTeam });
    const during = await request('GET', '/getTeamInfoForCode?groupCode=GRP123&groupCode=OTHER1');
    expect(during.status).toBe(200);
    expect(during.headers['access-control-allow-origin']).toBe('*');
    expect(json(during)).toEqual({ leftTeam, rightTeam });
    const tournamentInfo = { name: 'Cup', logoUrl: 'https://img.example/cup.png', backdropUrl: '', enabled: true };
    const sponsorInfo = { enabled: true, duration: 5000, sponsors: ['https://img.example/s.png'] };
    await teamInfo.setFinal('GRP123', { higherScore: 0, tournamentInfo, sponsorInfo, isSupporter: false });
    expect(json(await request('GET', '/getTeamInfoForCode?groupCode=GRP123'))).toEqual({ leftTeam, rightTeam, higherScore: 0, tournamentInfo, sponsorInfo, isSupporter: false });
    expect(json(await request('GET', '/getTeamInfoForCode?groupCode=grp123'))).toEqual({ error: 'Group code not found' });
    expect(json(await request('GET', '/getTeamInfoForCode'))).toEqual({ error: 'Group code is required' });
  });
});
