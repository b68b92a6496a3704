// A batched delivery keeps one webhook-id across its attempts (issue 37; docs/events.md, "Batched
// deliveries"), as Standard Webhooks expects: the id is made from the events the batch carries, and a
// failed batch is sent again as it was (more events stored meanwhile wait for the next request), also
// after a restart over the same DATA_DIR (the failed batch is kept in `batches.json` under events/). So a
// receiver that de-duplicates by webhook-id alone, as the `standardwebhooks` library's users do, gets
// every event exactly once. Real service, the recorded match, a real local receiver.
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const KEY = 'batch-id-key-0123456789';
const SECRET = `whsec_${Buffer.from('batch-id-secret-of-24-bytes-or-more').toString('base64')}`;

const receivers: WebhookReceiver[] = [];
const services: TestService[] = [];
afterAll(async () => {
  closeAll();
  for (const s of services) await s.close();
  for (const r of receivers) await r.close();
});

type Ev = { id: string; seq: number; type: string; groupCode: string };
const verified = (d: WebhookReceiver['deliveries'][number]) =>
  new Webhook(SECRET).verify(d.body, { 'webhook-id': d.id, 'webhook-timestamp': d.timestamp, 'webhook-signature': d.signature }) as Ev[];

/** What a receiver that de-duplicates by webhook-id only keeps: the events of each id's first delivery. */
function byWebhookId(deliveries: WebhookReceiver['deliveries']): Ev[] {
  const seen = new Set<string>();
  const out: Ev[] = [];
  for (const d of deliveries) {
    if (seen.has(d.id)) continue;
    seen.add(d.id);
    out.push(...verified(d));
  }
  return out;
}

/** Each webhook-id names one body, and each body one webhook-id. */
function oneIdPerBody(deliveries: WebhookReceiver['deliveries']): void {
  const bodyOf = new Map<string, string>();
  const idOf = new Map<string, string>();
  for (const d of deliveries) {
    expect(bodyOf.get(d.id) ?? d.body).toBe(d.body);
    expect(idOf.get(d.body) ?? d.id).toBe(d.id);
    bodyOf.set(d.id, d.body);
    idOf.set(d.body, d.id);
  }
}

describe('a batched delivery', () => {
  it('keeps its webhook-id across failed attempts: de-duplication by webhook-id gets every event once', async () => {
    let answered = 0;
    const receiver = await startReceiver(() => (++answered <= 3 ? 503 : 204));
    receivers.push(receiver);
    const svc = await startTestService({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', WEBHOOKS: JSON.stringify([{ id: 'many', url: receiver.url, secret: SECRET, batch: true }]) });
    services.push(svc);
    const { socket } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: 'BIDONE' });
    await sendRecords(socket, replay, { pace: 'instant', groupCode: 'BIDONE' });
    await receiver.waitFor((events) => events.some((e) => e.type === 'match_ended'), 90_000);

    const [first, ...rest] = receiver.deliveries;
    // The three failed attempts and the one that succeeded: one batch, one id, the same body.
    for (const d of rest.slice(0, 3)) {
      expect(d.id).toBe(first.id);
      expect(d.body).toBe(first.body);
    }
    expect(rest[3].id).not.toBe(first.id);
    oneIdPerBody(receiver.deliveries);
    const events = byWebhookId(receiver.deliveries);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)!.type).toBe('match_ended');
  }, 180_000);

  it('is sent again under the same webhook-id after a restart, without the events stored after it failed', async () => {
    let failing = true;
    const receiver = await startReceiver(() => (failing ? 503 : 204));
    receivers.push(receiver);
    const env = { AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', WEBHOOKS: JSON.stringify([{ id: 'many', url: receiver.url, secret: SECRET, batch: true }]) };
    const first = await startTestService(env);
    services.push(first);
    const { socket } = await replayObserver(first.ingest, replay, { key: KEY, groupCode: 'BIDTWO' });
    await sendRecords(socket, replay, { pace: 'instant', groupCode: 'BIDTWO', to: 40 });
    await expect.poll(() => receiver.deliveries.length, { timeout: 30_000 }).toBeGreaterThan(0);
    const failed = receiver.deliveries[0];
    const pinned = verified(failed);
    // More events after the batch failed: its next attempt is the same batch, the same id.
    await sendRecords(socket, replay, { pace: 'instant', groupCode: 'BIDTWO', from: 40, to: 600 });
    const seen = receiver.deliveries.length;
    await expect.poll(() => receiver.deliveries.length, { timeout: 30_000 }).toBeGreaterThan(seen);
    expect(receiver.deliveries.at(-1)!.id).toBe(failed.id);
    expect(receiver.deliveries.at(-1)!.body).toBe(failed.body);
    socket.close();
    await first.close();

    const before = receiver.deliveries.length;
    failing = false;
    const second = await startTestService({ ...env, DATA_DIR: first.dataDir });
    services.push(second);
    await expect.poll(() => receiver.deliveries.length, { timeout: 30_000 }).toBeGreaterThan(before + 1);
    const resent = receiver.deliveries[before];
    expect(resent.id).toBe(failed.id);
    expect(verified(resent)).toEqual(pinned);
    // The events stored after the failure came in the next request, under another id.
    const next = verified(receiver.deliveries[before + 1]);
    expect(receiver.deliveries[before + 1].id).not.toBe(failed.id);
    expect(next[0].seq).toBe(pinned.at(-1)!.seq + 1);
    oneIdPerBody(receiver.deliveries);
    const events = byWebhookId(receiver.deliveries);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  }, 180_000);
});
