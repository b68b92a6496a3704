// The event journal (src/main/events/journal.ts) keeps an ended match's record for the retention
// on disk, with only its summary in memory, and lets the match's events go once delivered: a
// tournament day's thousands of ended matches must not grow the heap (docs/benchmarks.md, the soak).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/main/base/log.js';
import { EventJournal } from '../../../src/main/events/journal.js';
import { FileEventOutbox } from '../../../src/main/events/adapters/state-dir/event-outbox.js';
import { JournalFiles } from '../../../src/main/events/journal-files.js';
import { FileRecordStore } from '../../../src/main/events/adapters/state-dir/record-store.js';
import type { DerivedEvent } from '../../../src/protocol/match-events.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ods-journal-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const player = (n: number) => ({ playerId: `p${n}`, name: `Player ${n}`, team: n < 5 ? 0 : 1 });
/** A short match's events: created, 3 rounds with a kill each, ended. */
function events(): DerivedEvent[] {
  let order = 0;
  const e = (type: DerivedEvent['type'], round: number, data: Record<string, unknown>): DerivedEvent => ({ type, at: 1_700_000_000_000 + order, round, order: order++ * 64, data });
  const out = [e('match_created', 0, {})];
  for (let r = 1; r <= 3; r++) {
    out.push(e('kill', r, { attacker: player(r), victim: player(5 + r), headshot: true, teamKill: false, firstBlood: true, assists: [] }));
    out.push(e('round_ended', r, { round: r, winner: { team: 0, side: 'attack' }, method: 'elimination', score: { team_0: r, team_1: 0 }, players: Array.from({ length: 10 }, (_, i) => ({ ...player(i), spent: 100 * i })) }));
  }
  out.push(e('match_ended', 3, { map: 'Icebox', teams: [], reason: 'completed', score: { team_0: 3, team_1: 0 }, players: Array.from({ length: 10 }, (_, i) => ({ ...player(i), agent: 'Jett', kills: 1, deaths: 1, assists: 0 })) }));
  return out;
}

describe('EventJournal: ended matches', () => {
  it('keeps only a summary of each record in memory, reads the record from its file, and releases the delivered events', async () => {
    const log = createLogger({ LOG_LEVEL: 'silent', LOG_FORMAT: 'json' });
    const files = new JournalFiles(dir, log);
    const records = new FileRecordStore(files, 3_600_000);
    const journal = new EventJournal({ files, records, log, resumeWindowMs: 600_000, retentionMs: 3_600_000 });
    const keys = Array.from({ length: 50 }, (_, i) => `M${i}-key`);
    for (const key of keys) {
      for (const d of events()) journal.add(key.slice(0, 3), key, `match-${key}`, 'org', d);
      journal.release(key); // what webhook delivery does once every endpoint has its events (none here)
    }
    expect(journal.matches.size).toBe(0);
    expect(records.size).toBe(50);
    const summary = (await records.list()).find((s) => s.matchKey === 'M7-key')! as unknown as Record<string, unknown>;
    expect(summary.score).toEqual({ team_0: 3, team_1: 0 });
    expect('playerRounds' in summary || 'rounds' in summary || 'players' in summary).toBe(false);
    const record = (await records.get('M7-key'))!;
    expect(record.matchKey).toBe('M7-key');
    expect(record.rounds).toHaveLength(3);
    expect(record.playerRounds).toHaveLength(30);
    expect(record.players.find((p) => p.playerId === 'p1')).toMatchObject({ kills: 1, headshots: 1, firstBloods: 1 });
    expect(await records.get('unknown')).toBeUndefined();
    journal.close();
    // After a restart: the same summaries from the files, the records read on request (from the file:
    // once it is gone, the record is too, though its summary was loaded).
    const files2 = new JournalFiles(dir, log);
    const again = new FileRecordStore(files2, 3_600_000);
    const journal2 = new EventJournal({ files: files2, records: again, log, resumeWindowMs: 600_000, retentionMs: 3_600_000 });
    expect(again.size).toBe(50);
    expect('playerRounds' in (await again.list())[0]).toBe(false);
    expect(await again.get('M7-key')).toEqual(record);
    files2.deleteRecord('M7-key');
    expect(await again.get('M7-key')).toBeUndefined();
    journal2.close();
  });

  it('a match read from the shared outbox that had ended has its record kept again, in this node\'s store', async () => {
    const log = createLogger({ LOG_LEVEL: 'silent', LOG_FORMAT: 'json' });
    // Node A's events, written to the files that node B then reads as its shared outbox (the files
    // adapter of the EventOutbox port); each node has its own record store.
    const outboxDir = fs.mkdtempSync(path.join(dir, 'outbox-'));
    const recordsA = new FileRecordStore(null, 3_600_000);
    const a = new EventJournal({ files: new JournalFiles(outboxDir, log), records: recordsA, log, resumeWindowMs: 600_000, retentionMs: 3_600_000 });
    const all = events();
    for (const d of all) a.add('LOST', 'LOST-key', 'match-lost', 'org', d);
    const shared = new FileEventOutbox(new JournalFiles(outboxDir, log));
    expect(await shared.events('LOST-key')).toHaveLength(all.length);
    const record = (await recordsA.get('LOST-key'))!;
    expect(record.rounds).toHaveLength(3);
    a.close();
    // Node A is lost before its record reached the shared store: node B reads the ended match from the outbox.
    const recordsB = new FileRecordStore(null, 3_600_000);
    const b = new EventJournal({ files: null, shared, records: recordsB, log, resumeWindowMs: 600_000, retentionMs: 3_600_000 });
    expect(b.add('LOST', 'LOST-key', 'match-lost', 'org', all[1])).toBeNull();
    await expect.poll(() => recordsB.get('LOST-key')).toEqual(record);
    expect(b.matches.get('LOST-key')?.ended).toBe(true);
    b.close();
  });
});
