// Webhook endpoints added through the admin API outlive a restart, and dead letters are redelivered
// (issue 35; README, "Webhooks"; docs/events.md, "What is kept where"), on one service without Redis:
// the endpoint is kept in DATA_DIR/webhook-endpoints.json (owner-only, its secret in it and in no
// answer, log line or metric); after a restart over the same DATA_DIR it is listed and used (every delivery
// signed with the secret shown once at its creation); its dead letters (a receiver answering 500,
// WEBHOOK_RETRY_FOR_MS=1000) are redelivered through the admin API (401 without the token), leave
// the list, and a second redelivery is 404; an event past the retention is 410; a removed endpoint's
// dead letter is 404; an endpoint of the WEBHOOKS setting cannot be removed through the API (400);
// an entry of the file that is not an endpoint is skipped at the start, logged by its id.
import fs from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import type { DeadLetter } from '../../../src/main/events/record-store.js';
import { closeAll } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const KEY = 'kept-endpoints-key-0123';
const SETTING_SECRET = `whsec_${Buffer.from('setting-secret-of-24-bytes!!').toString('base64')}`;

const services: TestService[] = [];
let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  closeAll();
  for (const s of services) await s.close();
  await receiver?.close();
});

type Listed = { endpoints: { id: string; source: string }[]; deadLetters: (DeadLetter & { id: string })[] };
const listed = async (svc: TestService) => await (await svc.admin.request('GET', '/admin/webhooks')).json() as Listed;
const verify = (secret: string, d: WebhookReceiver['deliveries'][number]) =>
  (new Webhook(secret).verify(d.body, { 'webhook-id': d.id, 'webhook-timestamp': d.timestamp, 'webhook-signature': d.signature }) as { id: string }).id;

describe('webhook endpoints added through the admin API', () => {
  it('outlive a restart (DATA_DIR, owner-only) and their dead letters are redelivered through the admin API', async () => {
    let failing = true;
    receiver = await startReceiver(() => (failing ? 500 : 204));
    const env = {
      AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', WEBHOOK_RETRY_FOR_MS: '1000',
      WEBHOOKS: JSON.stringify([{ id: 'from-setting', url: 'http://127.0.0.1:9/never', secret: SETTING_SECRET, events: ['match_ended'] }]),
    };
    const first = await startTestService(env);
    services.push(first);
    const made = await fetch(`${first.rest}/admin/webhooks`, {
      method: 'POST', headers: { authorization: `Bearer ${first.admin.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'kept', url: receiver.url }),
    });
    expect(made.status).toBe(201);
    const { secret } = await made.json() as { secret: string };
    const file = path.join(first.dataDir, 'webhook-endpoints.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toContain(secret);

    // Every delivery fails: the first events are dead-lettered after 1 s.
    const { socket } = await replayObserver(first.ingest, replay, { key: KEY, groupCode: 'KEPT1' });
    await sendRecords(socket, replay, { pace: 'instant', groupCode: 'KEPT1', to: 40 });
    await expect.poll(async () => (await listed(first)).deadLetters.filter((d) => d.endpointId === 'kept').length, { timeout: 60_000 }).toBeGreaterThan(1);
    socket.close();
    await first.close();

    // An event no longer kept (past the retention): a dead letter of it, as the list may still hold.
    const lettersFile = path.join(first.dataDir, 'events', 'dead-letters.json');
    const letters = JSON.parse(fs.readFileSync(lettersFile, 'utf8')) as DeadLetter[];
    const gone: DeadLetter = { ...letters[0], eventId: 'GONE-0000.1', deadAt: new Date().toISOString() };
    fs.writeFileSync(lettersFile, JSON.stringify([...letters, gone]));

    // An entry that is not an endpoint (edited by hand): skipped at the start, by id, the rest kept.
    const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { version: number; endpoints: Record<string, unknown>[] };
    fs.writeFileSync(file, JSON.stringify({ ...kept, endpoints: [...kept.endpoints, { ...kept.endpoints[0], id: 'broken', url: 'ftp://nope' }] }), { mode: 0o600 });

    // Restarted over the same DATA_DIR: the endpoint is there, no answer shows its secret.
    const second = await startTestService({ ...env, DATA_DIR: first.dataDir });
    services.push(second);
    const after = await listed(second);
    expect(after.endpoints.map((e) => `${e.id} ${e.source}`).sort()).toEqual(['from-setting setting', 'kept admin']);
    expect(second.logged({ msg: 'webhook endpoint in the store skipped', endpoint: 'broken' })).toHaveLength(1);
    expect(JSON.stringify(after)).not.toContain(secret);

    failing = false;
    const [letter, other] = after.deadLetters.filter((d) => d.endpointId === 'kept' && d.eventId !== gone.eventId);
    const redeliver = (id: string, token = second.admin.token) => fetch(`${second.rest}/admin/webhooks/dead-letters/${id}/redeliver`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect((await fetch(`${second.rest}/admin/webhooks/dead-letters/${letter.id}/redeliver`, { method: 'POST' })).status).toBe(401);
    expect((await redeliver(letter.id, 'not-the-admin-token-0000')).status).toBe(401);
    const before = receiver.deliveries.length;
    const res = await redeliver(letter.id);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ redelivered: true, status: 204, deadLetter: { id: letter.id, eventId: letter.eventId, endpointId: 'kept' } });
    const sent = receiver.deliveries.slice(before).find((d) => d.id === letter.eventId)!;
    expect(verify(secret, sent)).toBe(letter.eventId);
    expect(JSON.parse(sent.body)).toMatchObject({ id: letter.eventId, groupCode: 'KEPT1' });
    expect((await listed(second)).deadLetters.some((d) => d.eventId === letter.eventId && d.endpointId === 'kept')).toBe(false);
    expect((await redeliver(letter.id)).status).toBe(404);
    const goneId = after.deadLetters.find((d) => d.eventId === gone.eventId)!.id;
    const past = await redeliver(goneId);
    expect(past.status).toBe(410);
    expect((await past.json() as { error: string }).error).toContain('EVENTS_RETENTION_MS');
    expect((await redeliver('not-an-id')).status).toBe(404);

    // The endpoint is used after the restart: a new match's events reach it, signed with the same secret.
    const { socket: again } = await replayObserver(second.ingest, replay, { key: KEY, groupCode: 'KEPT2' });
    await sendRecords(again, replay, { pace: 'instant', groupCode: 'KEPT2', to: 40 });
    await receiver.waitFor((ev) => ev.some((e) => e.groupCode === 'KEPT2' && e.type === 'match_created'), 60_000);
    for (const d of receiver.deliveries.filter((x) => x.body.includes('"KEPT2"'))) expect(verify(secret, d)).toBe(d.id);
    again.close();

    // A setting's endpoint stays (400); the added one goes, and its dead letters cannot be redelivered.
    const settingRemove = await second.admin.request('POST', '/admin/webhooks/from-setting/remove');
    expect(settingRemove.status).toBe(400);
    expect((await settingRemove.json() as { error: string }).error).toContain('WEBHOOKS');
    expect((await second.admin.request('POST', '/admin/webhooks/kept/remove')).status).toBe(200);
    const orphan = await redeliver(other.id);
    expect(orphan.status).toBe(404);
    expect((await orphan.json() as { error: string }).error).toContain('no longer exists');
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).endpoints.map((e: { id: string }) => e.id)).toEqual(['broken']);
    for (const s of [first, second]) expect(s.logs.some((l) => l.includes(secret))).toBe(false);
    const metrics = await (await fetch(`${second.metricsUrl}/metrics`)).text();
    expect(metrics).toContain('ods_backend_calls_total{call="webhook"');
    expect(metrics).not.toContain(secret);
  }, 180_000);
});
