// Batched webhook deliveries (docs/events.md, "Batched deliveries"): an endpoint with `batch: true`
// gets each delivery as a JSON array of events, signed per Standard Webhooks over the array (verified
// with the `standardwebhooks` library), under a webhook-id of its batch. Played with the recorded match
// into a real service with two real local receivers, one single-event and one batch endpoint whose
// first answers fail: after de-duplication by event id the batch receiver has exactly the events the
// single-event one has, in seq order, in fewer requests than events.
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const KEY = 'events-key-0123456789';
const CODE = 'EVTBAT';
const SECRET_ONE = `whsec_${Buffer.from('one-secret-of-24-bytes-or-more!').toString('base64')}`;
const SECRET_BATCH = `whsec_${Buffer.from('batch-secret-of-24-bytes-or-more').toString('base64')}`;

const receivers: WebhookReceiver[] = [];
let svc: TestService | undefined;
afterAll(async () => {
  closeAll();
  await svc?.close();
  for (const r of receivers) await r.close();
});

const ended = (events: { type: string }[]) => events.some((e) => e.type === 'match_ended');

describe('batched webhooks', () => {
  it('deliver every event as signed arrays, in order, once after de-duplication by event id, across failed attempts', async () => {
    const single = await startReceiver();
    let answered = 0;
    const batch = await startReceiver(() => (++answered <= 2 ? 503 : 204)); // the first two attempts fail
    receivers.push(single, batch);
    svc = await startTestService({
      AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true',
      WEBHOOKS: JSON.stringify([{ id: 'one', url: single.url, secret: SECRET_ONE }, { id: 'many', url: batch.url, secret: SECRET_BATCH, batch: true }]),
    });
    const { socket, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: CODE });
    expect(ack.value).toBe(true);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE });
    await single.waitFor(ended, 60_000);
    await batch.waitFor(ended, 60_000);

    // Every batch delivery: an array of events, a signature the library accepts, a webhook-id of its
    // own batch (a retry repeats its batch's id and body: webhooks-batch-id.test.ts).
    const wh = new Webhook(SECRET_BATCH);
    const ids = new Map<string, string>();
    for (const d of batch.deliveries) {
      const payload = wh.verify(d.body, { 'webhook-id': d.id, 'webhook-timestamp': d.timestamp, 'webhook-signature': d.signature }) as { id: string; seq: number }[];
      expect(Array.isArray(payload)).toBe(true);
      expect(payload.length).toBeGreaterThan(0);
      expect(payload.map((e) => e.seq)).toEqual(payload.map((_, i) => payload[0].seq + i)); // one match here: consecutive
      expect(ids.get(d.id) ?? d.body).toBe(d.body);
      ids.set(d.id, d.body);
    }
    expect(() => new Webhook(SECRET_ONE).verify(batch.deliveries[0].body, {
      'webhook-id': batch.deliveries[0].id, 'webhook-timestamp': batch.deliveries[0].timestamp, 'webhook-signature': batch.deliveries[0].signature,
    })).toThrow();

    const events = batch.unique();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events).toEqual(single.unique());
    expect(events.filter((e) => e.type === 'round_ended')).toHaveLength(19);
    // The failed attempts were sent again, and the match's events went in fewer requests than events.
    expect(answered).toBeGreaterThan(2);
    expect(batch.deliveries.length).toBeLessThan(events.length / 2);

    const listed = await (await svc.admin.request('GET', '/admin/webhooks')).json() as { endpoints: { id: string; batch: boolean; stats: { delivered: number; failedAttempts: number } }[] };
    const many = listed.endpoints.find((e) => e.id === 'many')!;
    expect(many.batch).toBe(true);
    expect(many.stats.delivered).toBe(events.length);
    expect(many.stats.failedAttempts).toBe(2);
    expect(listed.endpoints.find((e) => e.id === 'one')!.batch).toBe(false);
  }, 180_000);
});
