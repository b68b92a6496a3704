// The EventOutbox contract (src/main/events/event-outbox.ts): every adapter must pass it.
import { describe, expect, it } from 'vitest';
import { closedAfterEach } from '../ports/opened-stores.js';
import type { EventOutbox, OutboxEvent, OutputFence } from '../../../src/main/events/event-outbox.js';

export interface EventOutboxHarness {
  make(): EventOutbox | Promise<EventOutbox>;
  /** A second outbox over the same data (another node, or the process after a restart). */
  reopen(first: EventOutbox): EventOutbox | Promise<EventOutbox>;
}

/** One writer's fence (one process, or one node of one epoch): fencing itself is the Redis adapter's test (adapters/event-outbox.test.ts). */
const F: OutputFence = { groupCode: 'G', epoch: 1, live: true };
let matches = 0;
const freshMatch = () => `G${++matches}#${Date.now().toString(36)}`;
function event(matchKey: string, seq: number, order = seq * 10): OutboxEvent {
  return { matchKey, seq, order, organizationId: seq % 2 ? 'org-a' : '', text: JSON.stringify({ id: `${matchKey}.${seq}`, seq, type: 'kill', data: { n: seq } }) };
}

export function describeEventOutboxContract(name: string, harness: EventOutboxHarness): void {
  describe(`EventOutbox contract: ${name}`, () => {
    const track = closedAfterEach<EventOutbox>();
    const make = async () => track(await harness.make());

    it('append keeps a match\'s events in seq order; events reads them back as stored, all or after a seq', async () => {
      const outbox = await make();
      const key = freshMatch();
      expect(await outbox.events(key)).toEqual([]);
      for (let seq = 1; seq <= 5; seq++) expect(await outbox.append(event(key, seq), F)).toBe(true);
      expect(await outbox.events(key)).toEqual([1, 2, 3, 4, 5].map((s) => event(key, s)));
      expect((await outbox.events(key, 3)).map((e) => e.seq)).toEqual([4, 5]);
      expect(await outbox.events(key, 5)).toEqual([]);
    });

    it('append refuses a seq that is not the next one (stored already, or a gap), and keeps the first', async () => {
      const outbox = await make();
      const key = freshMatch();
      await outbox.append(event(key, 1), F);
      await outbox.append(event(key, 2), F);
      expect(await outbox.append({ ...event(key, 2), text: '{"other":true}' }, F)).toBe(false);
      expect(await outbox.append(event(key, 4), F)).toBe(false);
      expect(await outbox.append(event(key, 3), F)).toBe(true);
      const stored = await outbox.events(key);
      expect(stored.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(stored[1]).toEqual(event(key, 2));
    });

    it('matches are apart: one match\'s events and cursors are not another\'s', async () => {
      const outbox = await make();
      const [a, b] = [freshMatch(), freshMatch()];
      await outbox.append(event(a, 1), F);
      expect(await outbox.append(event(b, 1), F)).toBe(true);
      await outbox.advance('wh_1', a, 1, F);
      expect(await outbox.cursors(b)).toEqual({});
      expect((await outbox.events(b)).map((e) => e.matchKey)).toEqual([b]);
    });

    it('advance moves a cursor forward only, per endpoint', async () => {
      const outbox = await make();
      const key = freshMatch();
      expect(await outbox.cursors(key)).toEqual({});
      await outbox.advance('wh_1', key, 3, F);
      await outbox.advance('wh_1', key, 2, F);
      await outbox.advance('wh_2', key, 1, F);
      expect(await outbox.cursors(key)).toEqual({ wh_1: 3, wh_2: 1 });
      await outbox.advance('wh_2', key, 4, F);
      expect(await outbox.cursors(key)).toEqual({ wh_1: 3, wh_2: 4 });
    });

    it('another outbox over the same data (another node, a restart) has every event and cursor, and numbers on after them', async () => {
      const first = await make();
      const key = freshMatch();
      for (let seq = 1; seq <= 3; seq++) await first.append(event(key, seq), F);
      await first.advance('wh_1', key, 2, F);
      const second = track(await harness.reopen(first));
      expect(await second.events(key)).toEqual([1, 2, 3].map((s) => event(key, s)));
      expect(await second.cursors(key)).toEqual({ wh_1: 2 });
      expect(await second.append(event(key, 3), F)).toBe(false);
      expect(await second.append(event(key, 4), F)).toBe(true);
    });
  });
}
