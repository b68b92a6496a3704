// The output delay's gate (src/main/events/delay-gate.ts) between the journal and a real batch
// webhook endpoint (a real local receiver): an event not yet due never rides along in a batch with
// an earlier one that is, and a change of the delay hands on what is due under it. The second
// event's store time is moved a minute later (as if it had come then), so that the case is
// deterministic: what is due is decided by the stored times, not by how fast this machine runs.
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/main/base/log.js';
import { WebhookDelivery } from '../../../src/main/events/delivery.js';
import { parseEndpoint } from '../../../src/main/events/endpoints.js';
import { EventJournal } from '../../../src/main/events/journal.js';
import { FileDeadLetters, FileRecordStore } from '../../../src/main/events/adapters/state-dir/record-store.js';
import type { DerivedEvent } from '../../../src/protocol/match-events.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const SECRET = `whsec_${Buffer.from('gate-test-secret-of-24-bytes').toString('base64')}`;
const log = createLogger({ LOG_LEVEL: 'silent', LOG_FORMAT: 'json' });
let receiver: WebhookReceiver | undefined;
const closing: Array<{ close(): void }> = [];
afterAll(async () => {
  for (const c of closing) c.close();
  await receiver?.close();
});

const derived = (type: DerivedEvent['type'], order: number): DerivedEvent => ({ type, at: Date.now(), round: 1, order, data: { n: order } });

describe('the output delay gate', () => {
  it('sends a batch endpoint only the events that are due, in order; a shorter delay releases the rest', async () => {
    receiver = await startReceiver();
    let delayMs = 1000;
    const records = new FileRecordStore(null, 3_600_000);
    const journal = new EventJournal({ files: null, records, log, resumeWindowMs: 600_000, retentionMs: 3_600_000, delayMs: (code) => (code === 'GATE1' ? delayMs : 0) });
    const delivery = new WebhookDelivery({ journal, log, cursors: {}, save: null, deadLetters: new FileDeadLetters(null), timeoutMs: 5000, retryForMs: 60_000 });
    closing.push(delivery, journal, records);
    delivery.add(parseEndpoint({ id: 'batched', url: receiver.url, secret: SECRET, batch: true }, 'setting', () => 'x'));

    const first = journal.add('GATE1', 'GATE1-key', 'm1', '', derived('match_created', 0))!;
    const second = journal.add('GATE1', 'GATE1-key', 'm1', '', derived('kill', 64))!;
    second.keptAt = first.keptAt! + 60_000; // stored a minute after the first
    const match = journal.matches.get('GATE1-key')!;
    expect(match.handed).toBe(0);
    const seen: string[] = [];
    const unsubscribe = journal.subscribe((s) => seen.push(s.id));

    // The first is due after 1 s and goes alone: the second waits its minute.
    await receiver.waitFor((ev) => ev.length >= 1, 10_000);
    const firstBatch = JSON.parse(receiver.deliveries[0].body) as Array<{ id: string }>;
    expect(firstBatch.map((e) => e.id)).toEqual([first.id]);
    expect(match.handed).toBe(1);
    expect(seen).toEqual([first.id]);
    expect(journal.after(first.id)).toEqual([]); // the resume window has only what was handed on

    // 30 s: still not due; 0: due now, and handed on at once.
    delayMs = 30_000;
    journal.delayChanged('GATE1');
    expect(match.handed).toBe(1);
    delayMs = 0;
    journal.delayChanged('GATE1');
    expect(match.handed).toBe(2);
    expect(seen).toEqual([first.id, second.id]);
    await receiver.waitFor((ev) => ev.length >= 2, 10_000);
    expect(receiver.unique().map((e) => e.id)).toEqual([first.id, second.id]);
    unsubscribe();
  });
});
