// The event journal lets go of a running match's events once nothing in the process needs them
// (src/main/events/journal.ts, prune; docs/perf/memory.md, "In play"), over the recorded 19-round
// match: only what is durable (the journal's files), handed on and delivered to every endpoint (a
// real webhook receiver, down, then up) goes, the latest stays; the record folded as the events came
// equals the one of a journal that kept them all; a restored shard's repeats are still told by their
// digest; the live stream still resumes from any event of its window, sealed or open.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/main/base/log.js';
import { FileDeadLetters, FileRecordStore } from '../../../src/main/events/adapters/state-dir/record-store.js';
import { WebhookDelivery } from '../../../src/main/events/delivery.js';
import { newSecret, parseEndpoint } from '../../../src/main/events/endpoints.js';
import { EventJournal } from '../../../src/main/events/journal.js';
import { JournalFiles } from '../../../src/main/events/journal-files.js';
import { BLOCK_EVENTS, ResumeWindow } from '../../../src/main/events/resume-window.js';
import { storedEvent, type MatchEvent } from '../../../src/main/events/types.js';
import type { DerivedEvent } from '../../../src/protocol/match-events.js';
import { derivedEvents } from '../../helpers/derived-events.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });
const log = createLogger({ LOG_LEVEL: 'silent', LOG_FORMAT: 'json' });
const HOUR = 3_600_000;

const derived = derivedEvents();

/** A journal on its own files (pruning on; its timer left to the test), or in memory only (nothing let go). */
function journalOf(onDisk: boolean) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ods-prune-'));
  dirs.push(dir);
  const files = onDisk ? new JournalFiles(dir, log) : null;
  const records = new FileRecordStore(files, HOUR);
  const journal = new EventJournal({ files, records, log, resumeWindowMs: HOUR, retentionMs: HOUR, pruneIntervalMs: HOUR });
  return { journal, files, records };
}

describe('EventJournal: a running match\'s events let go', () => {
  it('goes as far as every endpoint has them; the record, the repeats and the stream\'s resume are as with all kept', async () => {
    expect(derived.at(-1)!.type).toBe('match_ended');
    expect(derived.length).toBeGreaterThan(BLOCK_EVENTS); // the resume window seals a block of them
    const KEY = 'PRUNE-k1';
    const { journal, files, records } = journalOf(true);
    const { journal: kept, records: keptRecords } = journalOf(false); // the same events, nothing let go: what every answer must equal
    const receiver = await startReceiver();
    await receiver.down(); // the endpoint is unreachable: nothing is delivered
    const delivery = new WebhookDelivery({
      journal, timeoutMs: 2_000, retryForMs: HOUR, retryFirstMs: 20, retryMaxMs: 50, log, save: null, cursors: {}, deadLetters: new FileDeadLetters(files),
    });
    delivery.add(parseEndpoint({ url: receiver.url, id: 'e1', secret: newSecret() }, 'setting', () => 'e1'));
    const add = (d: DerivedEvent) => [journal.add('PRUNE', KEY, 'm1', 'org', d), kept.add('PRUNE', KEY, 'm1', 'org', d)];
    try {
      const half = Math.floor(derived.length / 2);
      for (const d of derived.slice(0, half)) add(d);
      const match = journal.matches.get(KEY)!;
      journal.prune();
      expect(match.pruned).toBe(0); // durable and handed on, but the endpoint has none of them

      // The endpoint comes back and gets them: everything before the latest goes.
      await receiver.up();
      await receiver.waitFor((got) => got.length === half, 30_000);
      await expect.poll(() => { journal.prune(); return match.pruned; }, { timeout: 10_000 }).toBe(half - 1);
      expect(match.events.slice(0, half - 1).every((e) => e === undefined)).toBe(true);
      expect(match.events[half - 1]?.seq).toBe(half);

      // A restored shard derives the let-go events again: repeats (by their digest), dropped.
      for (const d of derived.slice(0, half)) expect(journal.add('PRUNE', KEY, 'm1', 'org', d)).toBeNull();
      // An event of a reused order with other data is a new one (the state came back from an older snapshot).
      const changed = { ...derived[3], data: { ...derived[3].data, changed: true } };
      const other = journalOf(true).journal;
      for (const d of derived.slice(0, 10)) other.add('OTHER', 'OTHER-k1', 'm2', 'org', d);
      other.prune();
      expect(other.matches.get('OTHER-k1')!.pruned).toBe(9);
      expect(other.add('OTHER', 'OTHER-k1', 'm2', 'org', changed)?.seq).toBe(11);
      other.close();

      // The rest of the match, delivered as it comes; the record equals the one folded from every event.
      for (const d of derived.slice(half)) add(d);
      await receiver.waitFor((got) => got.length === derived.length, 30_000);
      const record = (await records.get(KEY))!;
      const full = (await keptRecords.get(KEY))!;
      expect({ ...record, storedAt: '' }).toEqual({ ...full, storedAt: '' });
      expect(record.rounds).toHaveLength(19);
      // Every delivered event is the one the journal that kept everything has (the record's storedAt aside).
      const same = (text: string) => text.replace(/"storedAt":"[^"]*"/, '"storedAt":""');
      expect(receiver.unique().map((e) => same(JSON.stringify(e)))).toEqual(kept.matches.get(KEY)!.events.map((s) => same(s!.text)));

      // The live stream's resume window: from an event in a sealed block, in the open part, the last; an unknown id.
      const texts = kept.matches.get(KEY)!.events.map((s) => same(s!.text));
      for (const from of [1, BLOCK_EVENTS - 2, BLOCK_EVENTS, BLOCK_EVENTS + 7, derived.length]) {
        const missed = journal.after(`${KEY}.${from}`)!;
        expect(missed.map((s) => same(s.text))).toEqual(texts.slice(from));
        expect(missed.map((s) => s.id)).toEqual(texts.slice(from).map((_, k) => `${KEY}.${from + k + 1}`));
      }
      expect(journal.after(`${KEY}.${derived.length + 1}`)).toBeNull();
      await expect.poll(() => journal.matches.has(KEY), { timeout: 10_000 }).toBe(false); // ended and delivered: released whole
    } finally {
      delivery.close();
      journal.close();
      kept.close();
      await receiver.close();
    }
  }, 60_000);

  it('the resume window: an event older than the window is not resumed from, sealed or open; its blocks go', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const window = new ResumeWindow(60_000);
      const event = (seq: number) => {
        const e = { id: `W-k1.${seq}`, type: 'kill', version: 1, seq, groupCode: 'W', matchId: 'm', matchKey: 'W-k1', time: '', round: 1, data: { n: seq } } as MatchEvent;
        return storedEvent(e, JSON.stringify(e), { order: seq, organizationId: '' });
      };
      for (let seq = 1; seq <= 2 * BLOCK_EVENTS + 10; seq++) window.remember(event(seq));
      expect(window.after('W-k1.5')!.map((e) => e.seq)).toEqual(Array.from({ length: 2 * BLOCK_EVENTS + 5 }, (_, k) => k + 6));
      expect(window.size).toBe(2 * BLOCK_EVENTS + 10);
      vi.setSystemTime(Date.now() + 60_001);
      expect(window.after('W-k1.5')).toBeNull(); // in a sealed block, out of the window
      expect(window.after(`W-k1.${2 * BLOCK_EVENTS + 3}`)).toBeNull(); // open, out of the window
      for (let seq = 2 * BLOCK_EVENTS + 11; seq <= 3 * BLOCK_EVENTS; seq++) window.remember(event(seq)); // a block sealed now: the old ones go
      expect(window.size).toBe(BLOCK_EVENTS);
      expect(window.after(`W-k1.${2 * BLOCK_EVENTS + 20}`)!.map((e) => e.seq)).toEqual(Array.from({ length: BLOCK_EVENTS - 20 }, (_, k) => 2 * BLOCK_EVENTS + 21 + k));
    } finally {
      vi.useRealTimers();
    }
  });
});
