// The admin API over real HTTP against the running service: 404 without ADMIN_TOKEN, 401 without
// the right bearer token, the dashboard's data, force-end (final frame, backend completion of a
// registered match, removal, ingestion sockets closed) and secret rotation (new secret once; the
// old secret and the sessions that used it stop working; the new one takes over the match).
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { io, type Socket } from 'socket.io-client';
import { shardIndexOf } from '../../../src/main/shards/hash.js';
import type { DashboardSnapshot } from '../../helpers/admin.js';
import { startBackend, type FakeBackend } from '../../helpers/backends.js';
import { closeAll, connected, overlay, serverDisconnect } from '../../helpers/clients.js';
import { recordedMatch, replayMatchId, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { sseEvents } from '../../helpers/sse.js';
import { sessionPid } from '../../helpers/internals/socketio-client.js';

const replay = recordedMatch();
const MATCH_ID = replayMatchId(replay);
/** Records up to and including the third round's score message: left 1 – right 2. */
const AFTER_THIRD_SCORE = 443;

const AUTH_KEY = 'ADMIN-TEST-KEY';
const OPS_TOKEN = 'ops-token-5f1c9a7e2d';
const CI_TOKEN = 'ci-token-0b3e8d41c7aa';
const ADMIN_TOKEN = `ops:${OPS_TOKEN},${CI_TOKEN}`;

const observers: Socket[] = [];
afterEach(() => {
  for (const s of observers.splice(0)) s.close();
  closeAll();
});

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const adminActions = (svc: TestService) => svc.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.module === 'admin' && typeof l.action === 'string');

async function observe(svc: TestService, groupCode: string, to: number, secret = ''): Promise<{ socket: Socket; secret: string }> {
  const { socket, ack } = await replayObserver(svc.ingest, replay, { key: AUTH_KEY, groupCode, groupSecret: secret });
  observers.push(socket);
  expect(ack.value).toBe(true);
  await sendRecords(socket, replay, { pace: 'instant', groupCode, to });
  return { socket, secret: ack.reason };
}

describe('admin routes without ADMIN_TOKEN', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ AUTH_KEY, ADMIN_TOKEN: '' });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('answer 404 like any unknown path, whatever the credentials', async () => {
    const cases: Array<[string, string]> = [['GET', '/admin/matches'], ['GET', '/dashboard'], ['GET', '/dashboard/events'], ['POST', '/admin/matches/ABC123/end'], ['POST', '/admin/matches/ABC123/secret'], ['GET', '/admin/brackets'], ['POST', '/admin/brackets'], ['GET', '/admin/brackets/codes.csv']];
    for (const [method, route] of cases) {
      for (const headers of [{}, bearer(OPS_TOKEN)]) {
        const res = await fetch(`${svc.rest}${route}`, { method, headers });
        expect(res.status, `${method} ${route}`).toBe(404);
        expect(await res.json()).toEqual({ error: 'Not found' });
      }
    }
  });
});

describe('admin routes with ADMIN_TOKEN', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ AUTH_KEY, ADMIN_TOKEN, SHARD_WORKERS: '2' });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('answer 401 without a bearer token or with a wrong one, with a challenge and no data', async () => {
    const wrong = [{}, bearer('ops-token-5f1c9a7e2X'), bearer(OPS_TOKEN.slice(0, -1)), bearer(''), { Authorization: OPS_TOKEN }, { Authorization: `Token ${OPS_TOKEN}` }];
    for (const headers of wrong) {
      for (const [method, route] of [['GET', '/admin/matches'], ['POST', '/admin/matches/ABC123/end'], ['POST', '/admin/matches/ABC123/secret']]) {
        const res = await fetch(`${svc.rest}${route}`, { method, headers });
        expect(res.status, `${method} ${route} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
        expect(await res.json()).toEqual({ error: 'Unauthorized' });
      }
    }
    // The dashboard page asks a browser for the token (HTTP Basic, token as the password)…
    const page = await fetch(`${svc.rest}/dashboard`);
    expect(page.status).toBe(401);
    expect(page.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect((await fetch(`${svc.rest}/dashboard`, { headers: basic('anyone', 'not-the-token-000') })).status).toBe(401);
    // …but Basic never opens the JSON or the state-changing routes (a browser would send it cross-site).
    expect((await fetch(`${svc.rest}/admin/matches`, { headers: basic('ops', OPS_TOKEN) })).status).toBe(401);
    expect((await fetch(`${svc.rest}/admin/matches/ABC123/end`, { method: 'POST', headers: basic('ops', OPS_TOKEN) })).status).toBe(401);
  });

  it('serve the dashboard page with either token (bearer or basic), self-contained', async () => {
    for (const headers of [bearer(OPS_TOKEN), bearer(CI_TOKEN), basic('whoever', OPS_TOKEN)]) {
      const res = await fetch(`${svc.rest}/dashboard`, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      const html = await res.text();
      expect(html).toContain('<table id="matches">');
      expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//); // no external scripts, fonts or styles
    }
  });

  it('GET /admin/matches: every live match with teams, score, round, phase, map, sockets, last event and shard', async () => {
    const code = 'ADMLS1';
    const fe = await overlay(svc.broadcast, code);
    const fe2 = await overlay(svc.broadcast, code);
    await observe(svc, code, AFTER_THIRD_SCORE);
    await fe.waitFor((f) => (f.teams as Array<{ roundsWon: number }>)[1].roundsWon === 2 && (f.teams as Array<{ roundsWon: number }>)[0].roundsWon === 1);
    const before = Date.now();
    let row: DashboardSnapshot['matches'][number] | undefined;
    let snapshot: DashboardSnapshot | undefined;
    // The shards summarise changed matches every 500 ms.
    await expect.poll(async () => {
      const res = await fetch(`${svc.rest}/admin/matches`, { headers: bearer(CI_TOKEN) });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      snapshot = (await res.json()) as DashboardSnapshot;
      row = snapshot.matches.find((m) => m.groupCode === code);
      return row?.teams.map((t) => t.score);
    }, { timeout: 15_000, interval: 100 }).toEqual([1, 2]);
    const last = fe.frames.at(-1) as { roundNumber: number; roundPhase: string; map: string; teams: Array<{ teamName: string; teamTricode: string }> };
    expect(row).toMatchObject({
      groupCode: code,
      matchId: MATCH_ID,
      shard: shardIndexOf(code, 2), // FNV-1a of the group code, modulo SHARD_WORKERS
      teams: [{ name: 'Team Left', tricode: 'LFT', score: 1 }, { name: 'Team Right', tricode: 'RGT', score: 2 }],
      roundNumber: last.roundNumber,
      roundPhase: last.roundPhase,
      map: 'Icebox',
      observers: 1,
      auxiliaries: 0,
      overlays: 2,
    });
    expect(last.map).toBe('Icebox');
    expect(row!.lastEventAt).toBeGreaterThan(before - 10_000);
    expect(row!.lastEventAt).toBeLessThanOrEqual(Date.now());
    expect(snapshot!.serverTime).toBeGreaterThanOrEqual(before);
    expect(snapshot!.totals.matches).toBe(snapshot!.matches.length);
    expect(snapshot!.totals.sockets).toMatchObject({ observers: 1, overlays: 2 });
    expect(snapshot!.totals.sockets.broadcast).toBeGreaterThanOrEqual(2);
    expect(snapshot!.totals.dropped).toEqual({ ingest: expect.any(Object), shards: expect.any(Object), broadcast: expect.any(Object) });
    expect(snapshot!.history.intervalMs).toBe(1000);
    fe2.socket.close();
  });

  it('force-end: final frame to the overlays, removal, ingestion sockets closed, logged with the token id', async () => {
    const code = 'ADMEND';
    const fe = await overlay(svc.broadcast, code);
    const { socket } = await observe(svc, code, AFTER_THIRD_SCORE);
    // The last record sent is the score 1–2: once it shows, and the overlay holds every frame published, nothing more comes.
    await fe.waitFor((f) => (f.teams as Array<{ roundsWon: number }>)[1].roundsWon === 2 && (f.teams as Array<{ roundsWon: number }>)[0].roundsWon === 1);
    await expect.poll(async () => (await svc.frameNo(code)) === fe.frames.length).toBe(true);
    const framesBefore = fe.frames.length;
    const lastBefore = fe.frames.at(-1)!;
    const gone = serverDisconnect(socket);

    const res = await fetch(`${svc.rest}/admin/matches/${code}/end`, { method: 'POST', headers: bearer(OPS_TOKEN) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ groupCode: code, ended: true });

    expect(await gone).toBe('io server disconnect');
    await expect.poll(() => fe.frames.length, { timeout: 15_000 }).toBe(framesBefore + 1);
    const final = fe.frames.at(-1)!;
    const { serverTime: t1, ...restFinal } = final;
    const { serverTime: t0, ...restBefore } = lastBefore;
    expect(restFinal).toEqual({ ...restBefore, isRunning: false }); // the final state as it was, marked ended…
    expect(t1 as number).toBeGreaterThanOrEqual(t0 as number); // …serialized again at the end
    expect((await fetch(`${svc.rest}/match/${code}`)).status).toBe(404);
    const list = (await (await fetch(`${svc.rest}/admin/matches`, { headers: bearer(OPS_TOKEN) })).json()) as DashboardSnapshot;
    expect(list.matches.map((m) => m.groupCode)).not.toContain(code);
    // A second force-end finds nothing.
    expect((await fetch(`${svc.rest}/admin/matches/${code}/end`, { method: 'POST', headers: bearer(OPS_TOKEN) })).status).toBe(404);
    expect(adminActions(svc)).toContainEqual(expect.objectContaining({ tokenId: 'ops', action: 'force_end', groupCode: code, matchId: MATCH_ID }));
  });

  it('secret rotation: the new secret once, the old secret and its sessions stop working, the new one takes over', async () => {
    const code = 'ADMSEC';
    const fe = await overlay(svc.broadcast, code);
    const first = await observe(svc, code, 200);
    const oldPid = sessionPid(first.socket);
    expect(oldPid).toBeTruthy();
    await fe.waitFor((f) => f.matchId === MATCH_ID);
    const gone = serverDisconnect(first.socket);

    const res = await fetch(`${svc.rest}/admin/matches/${code}/secret`, { method: 'POST', headers: bearer(CI_TOKEN) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { groupCode: string; groupSecret: string; closedSessions: number };
    expect(body.groupCode).toBe(code);
    expect(body.closedSessions).toBe(1);
    expect(body.groupSecret).toMatch(/^[A-Z0-9]{16}$/);
    expect(body.groupSecret).not.toBe(first.secret);
    expect(await gone).toBe('io server disconnect');
    expect(await svc.admin.has(code)).toBe(true); // the match lives on

    // The old session cannot be resumed with its private session id: its data goes nowhere.
    const resumed = io(svc.ingest, { forceNew: true, reconnection: false, auth: { pid: oldPid } });
    observers.push(resumed);
    await connected(resumed);
    const unauthenticated = () => svc.metric('ods_messages_dropped_total', { reason: 'unauthenticated' });
    const droppedBefore = await unauthenticated();
    resumed.emit('obs_data', JSON.stringify({ ...replay.records[200], groupCode: code }));
    await expect.poll(unauthenticated).toBe(droppedBefore + 1);

    // The old secret is refused; the new one reconnects to the live match.
    const old = await replayObserver(svc.ingest, replay, { key: AUTH_KEY, groupCode: code, groupSecret: first.secret });
    observers.push(old.socket);
    expect(old.ack).toEqual({
      type: 'authenticate', value: false, reason: `Game with Group Code ${code} exists and is still live.`,
    });
    const { socket: backup, ack: backupAck } = await replayObserver(svc.ingest, replay, { key: AUTH_KEY, groupCode: code, groupSecret: body.groupSecret });
    observers.push(backup);
    expect(backupAck).toEqual({ type: 'authenticate', value: true, reason: 'reconnected' });
    // The backup observer's data reaches the overlay.
    await sendRecords(backup, replay, { pace: 'instant', groupCode: code, from: 200, to: AFTER_THIRD_SCORE });
    await fe.waitFor((f) => (f.teams as Array<{ roundsWon: number }>)[0].roundsWon === 1);

    expect(adminActions(svc)).toContainEqual(expect.objectContaining({ tokenId: expect.stringMatching(/^token-[0-9a-f]{8}$/), action: 'rotate_secret', groupCode: code, closedSessions: 1 }));
    // The secret is never logged.
    expect(svc.logs.some((l) => l.includes(body.groupSecret))).toBe(false);
  });

  it('404 for an unknown group code', async () => {
    for (const action of ['end', 'secret']) {
      const res = await fetch(`${svc.rest}/admin/matches/NOPE42/${action}`, { method: 'POST', headers: bearer(OPS_TOKEN) });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'Match not found' });
    }
  });

  it('the dashboard event stream: a full snapshot at once, then diffs about once a second', async () => {
    const controller = new AbortController();
    const res = await fetch(`${svc.rest}/dashboard/events`, { headers: basic('ops', OPS_TOKEN), signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events: Array<{ event: string; at: number; data: Record<string, unknown> }> = [];
    const started = Date.now();
    for await (const { event, data } of sseEvents(res.body!)) {
      events.push({ event, at: Date.now(), data: JSON.parse(data) as Record<string, unknown> });
      if (events.length === 4 || Date.now() - started >= 15_000) break;
    }
    controller.abort();
    expect(events.map((e) => e.event)).toEqual(['full', 'diff', 'diff', 'diff']);
    expect(events[0].data).toMatchObject({ matches: expect.any(Array), totals: expect.any(Object), history: expect.any(Object) });
    expect(events[1].data).toMatchObject({ changed: expect.any(Array), removed: expect.any(Array), totals: expect.any(Object), point: expect.any(Number) });
    // The gaps between the service's own stamps (two events can reach this test in one chunk).
    const gaps = events.slice(2).map((e, i) => (e.data.serverTime as number) - (events[i + 1].data.serverTime as number));
    for (const gap of gaps) {
      expect(gap).toBeGreaterThan(700);
      expect(gap).toBeLessThan(2500); // about once a second; a loaded machine may be late
    }
  });
});

describe('force-end of a registered match', () => {
  let svc: TestService;
  let backend: FakeBackend;
  beforeAll(async () => {
    backend = await startBackend((req) => {
      if (req.path.startsWith('/system/validateAccessKey/')) return { status: 200, json: { id: 'org-7', name: 'Org Seven' } };
      if (/^\/system\/match\/[^/]+\/(register|update|complete)$/.test(req.path)) return { status: 200, json: {} };
      return { status: 404, json: {} };
    });
    svc = await startTestService({ AUTH_KEY, ADMIN_TOKEN, USE_BACKEND: 'true', BACKEND_URL: backend.url, BACKEND_TOKEN: 'bt' });
  });
  afterAll(async () => {
    await svc?.close();
    await backend?.close();
  });

  it('completes the match with the backend after the final frame', async () => {
    const code = 'ADMREG';
    const fe = await overlay(svc.broadcast, code);
    await observe(svc, code, AFTER_THIRD_SCORE);
    await fe.waitFor((f) => f.isRegistered === true && (f.teams as Array<{ roundsWon: number }>)[1].roundsWon === 2 && (f.teams as Array<{ roundsWon: number }>)[0].roundsWon === 1);
    expect(backend.requestsTo(`/system/match/${MATCH_ID}/complete`)).toHaveLength(0);

    const res = await fetch(`${svc.rest}/admin/matches/${code}/end`, { method: 'POST', headers: bearer(OPS_TOKEN) });
    expect(res.status).toBe(200);
    await expect.poll(() => backend.requestsTo(`/system/match/${MATCH_ID}/complete`).length).toBe(1);
    const complete = backend.requestsTo(`/system/match/${MATCH_ID}/complete`)[0];
    expect(complete.method).toBe('PUT');
    const record = (JSON.parse(complete.body) as { match: { groupCode: string; isRunning: boolean; teams: Array<{ roundsWon: number }>; serverTime?: unknown } }).match;
    expect(record.groupCode).toBe(code);
    expect(record.isRunning).toBe(false); // ended, like the final frame
    expect(record.teams.map((t) => t.roundsWon)).toEqual([1, 2]);
    expect('serverTime' in record).toBe(false); // a frame field, not match state
    expect(await svc.admin.has(code)).toBe(false);
  });
});
