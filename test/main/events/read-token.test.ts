// The read token (issue 37; README, "Read token"): a token of EVENTS_READ_TOKEN reads GET /events,
// the match records (JSON and both CSVs) and the dead letters, so a stream client told `event: gap`
// fetches the record with the token it has; it changes nothing: every admin route the README lists
// other than those reads (each write included) answers it 403 and nothing changed; without a token
// or with a wrong one, 401. With EVENTS_READ_TOKEN and no ADMIN_TOKEN the reads work and the admin
// routes stay 404. Real service, the recorded match, a real failing webhook receiver.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { sseEvents } from '../../helpers/sse.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const KEY = 'read-token-key-0123456789';
const READ = 'integrator-read-token-0123456789';
const CODE = 'READTK';
const SECRET = `whsec_${Buffer.from('read-token-secret-of-24-bytes!!').toString('base64')}`;
/** The reads a read token may make (README, "Read token"). */
const READS = new Set(['GET /admin/records', 'GET /admin/records/:matchKey', 'GET /admin/records/:matchKey/rounds.csv', 'GET /admin/records/:matchKey/players.csv', 'GET /admin/webhooks/dead-letters']);

const services: TestService[] = [];
let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  closeAll();
  for (const s of services) await s.close();
  await receiver?.close();
});

/** Every admin and dashboard route in the README's tables, as `METHOD /path`. */
function documentedRoutes(): string[] {
  const readme = fs.readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const routes = new Set<string>();
  for (const m of readme.matchAll(/^\| `(GET|POST|PUT|DELETE|PATCH) (\/(?:admin|dashboard)[^`\s?]*)/gm)) routes.add(`${m[1]} ${m[2]}`);
  return [...routes];
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('a read token (EVENTS_READ_TOKEN)', () => {
  it('reads the stream, the records and the dead letters, and is refused every admin route', async () => {
    receiver = await startReceiver(() => 500);
    const svc = await startTestService({
      AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', EVENTS_READ_TOKEN: READ, WEBHOOK_RETRY_FOR_MS: '1000',
      WEBHOOKS: JSON.stringify([{ id: 'down', url: receiver.url, secret: SECRET, events: ['match_created', 'round_ended'] }]),
    });
    services.push(svc);
    const { socket } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: CODE });
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE });

    // A stream client resuming from an id outside the window is told `gap`, then fetches the record with its token.
    const ctrl = new AbortController();
    const res = await fetch(`${svc.rest}/events?groupCode=${CODE}`, { headers: { ...bearer(READ), 'last-event-id': 'LOST-0000.1' }, signal: ctrl.signal });
    expect(res.status).toBe(200);
    const first = await sseEvents(res.body!).next();
    expect(first.value?.event).toBe('gap');
    ctrl.abort();

    let listed: { records: { matchKey: string; groupCode: string }[] } = { records: [] };
    await expect.poll(async () => {
      const r = await fetch(`${svc.rest}/admin/records?groupCode=${CODE}`, { headers: bearer(READ) });
      expect(r.status).toBe(200);
      listed = await r.json() as typeof listed;
      return listed.records.length;
    }, { timeout: 60_000 }).toBe(1);
    const key = encodeURIComponent(listed.records[0].matchKey);
    const record = await fetch(`${svc.rest}/admin/records/${key}`, { headers: bearer(READ) });
    expect(record.status).toBe(200);
    expect(await record.json()).toMatchObject({ matchKey: listed.records[0].matchKey, groupCode: CODE });
    // The same as the admin token reads.
    expect(await (await svc.admin.request('GET', `/admin/records/${key}`)).json()).toMatchObject({ matchKey: listed.records[0].matchKey });
    for (const file of ['rounds.csv', 'players.csv']) {
      const r = await fetch(`${svc.rest}/admin/records/${key}/${file}`, { headers: bearer(READ) });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain('text/csv');
      expect((await r.text()).split('\n').length).toBeGreaterThan(10);
    }
    let letters: { deadLetters: { endpointId: string; eventId: string }[] } = { deadLetters: [] };
    await expect.poll(async () => {
      const r = await fetch(`${svc.rest}/admin/webhooks/dead-letters`, { headers: bearer(READ) });
      expect(r.status).toBe(200);
      letters = await r.json() as typeof letters;
      return letters.deadLetters.length;
    }, { timeout: 60_000 }).toBeGreaterThan(0);
    expect(letters.deadLetters[0].endpointId).toBe('down');
    // The admin token reads them too, the same list as GET /admin/webhooks has.
    const asAdmin = await svc.admin.request('GET', '/admin/webhooks/dead-letters');
    expect(asAdmin.status).toBe(200);
    const all = await (await svc.admin.request('GET', '/admin/webhooks')).json() as typeof letters;
    expect((await asAdmin.json() as typeof letters).deadLetters.slice(0, letters.deadLetters.length)).toEqual(all.deadLetters.slice(0, letters.deadLetters.length));
    expect(JSON.stringify(letters)).not.toContain(receiver.url); // the endpoints (their URLs) are the admin's

    // No token, a wrong one: 401 on every read.
    for (const path of ['/admin/records', `/admin/records/${key}`, `/admin/records/${key}/rounds.csv`, '/admin/webhooks/dead-letters']) {
      expect((await fetch(`${svc.rest}${path}`)).status).toBe(401);
      expect((await fetch(`${svc.rest}${path}`, { headers: bearer('not-a-token-0123456789abcdef') })).status).toBe(401);
    }

    // Every other admin route the README lists, each write included: 403 for the read token, nothing changed.
    const endpointsNow = async () => ((await (await svc.admin.request('GET', '/admin/webhooks')).json()) as { endpoints: { id: string; url: string }[] }).endpoints.map((e) => `${e.id} ${e.url}`);
    const before = await endpointsNow();
    const routes = documentedRoutes().filter((r) => !READS.has(r));
    expect(routes.filter((r) => !r.startsWith('GET ')).length).toBeGreaterThanOrEqual(15);
    for (const route of routes) {
      const [method, pattern] = route.split(' ');
      const path = pattern.replace(':groupCode', CODE).replace(':matchKey', key).replace(':id', 'down').replace(':n', '1');
      const body = method === 'GET' ? undefined : JSON.stringify({ url: 'http://127.0.0.1:9/x', groupCode: 'NEWONE', seconds: 5, round: 1 });
      const r = await fetch(`${svc.rest}${path}`, { method, headers: { ...bearer(READ), 'content-type': 'application/json' }, body });
      expect({ route, status: r.status }).toEqual({ route, status: 403 });
      expect((await r.json() as { error: string }).error).toContain('read token');
      const basic = await fetch(`${svc.rest}${path}`, { method, headers: { authorization: `Basic ${Buffer.from(`x:${READ}`).toString('base64')}` }, body });
      expect({ route, refused: [401, 403].includes(basic.status) }).toEqual({ route, refused: true });
    }
    expect(await endpointsNow()).toEqual(before);
    expect((await (await svc.admin.request('GET', '/admin/fixtures')).json() as { fixtures: unknown[] }).fixtures).toEqual([]);
    expect((await (await svc.admin.request('GET', `/admin/matches/${CODE}/delay`)).json())).toMatchObject({ seconds: 0 });
    expect(svc.logged({ msg: 'admin request refused: a read token', tokenId: 'read-1' }).length).toBeGreaterThanOrEqual(routes.length);
    expect(svc.logs.some((l) => l.includes(READ))).toBe(false);
    socket.close();
  }, 180_000);

  it('reads without ADMIN_TOKEN; the admin routes stay 404', async () => {
    const svc = await startTestService({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', EVENTS_READ_TOKEN: READ, ADMIN_TOKEN: '' });
    services.push(svc);
    const r = await fetch(`${svc.rest}/admin/records`, { headers: bearer(READ) });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ records: [] });
    expect((await fetch(`${svc.rest}/admin/webhooks/dead-letters`, { headers: bearer(READ) })).status).toBe(200);
    expect((await fetch(`${svc.rest}/admin/records`)).status).toBe(401);
    expect((await fetch(`${svc.rest}/admin/webhooks`, { headers: bearer(READ) })).status).toBe(404);
    expect((await fetch(`${svc.rest}/admin/matches`, { headers: bearer(READ) })).status).toBe(404);
  }, 60_000);
});
