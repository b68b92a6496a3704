// The embedded RecordStore and DeadLetterStore (events/record-store.ts), on one node's disk: each
// record in its file (`record-<digest>.json` under `events/`, journal-files.ts) with only its
// summary in memory (a record is ~35 kB of JSON; a tournament day's thousands of them, kept a week,
// grew the heap without end: docs/benchmarks.md, the soak), and the dead letters in memory and in
// `dead-letters.json` (rewritten at most every 250 ms). Without files (null) both stay in memory.
import { MAX_DEAD_LETTERS, retentionCutoff, summaryOf, type DeadLetter, type DeadLetterStore, type MatchRecord, type RecordFilter, type RecordStore, type RecordSummary } from '../../record-store.js';
import type { JournalFiles } from '../../journal-files.js';

export class FileRecordStore implements RecordStore {
  private readonly summaries = new Map<string, RecordSummary>();
  /** The records themselves, only when there are no files to read them from. */
  private readonly inMemory = new Map<string, MatchRecord>();

  constructor(private readonly files: JournalFiles | null, private readonly retentionMs: number) {
    for (const record of (files?.loadRecords() ?? []) as MatchRecord[]) if (record?.matchKey) this.summaries.set(record.matchKey, summaryOf(record));
  }

  /** How many summaries are held (the journal's load log line). */
  get size(): number {
    return this.summaries.size;
  }

  async put(record: MatchRecord): Promise<void> {
    this.summaries.set(record.matchKey, summaryOf(record));
    if (this.files) this.files.writeRecord(record.matchKey, record);
    else this.inMemory.set(record.matchKey, record);
  }

  async list(filter: RecordFilter = {}): Promise<RecordSummary[]> {
    const cutoff = retentionCutoff(Date.now(), this.retentionMs);
    const out: RecordSummary[] = [];
    for (const s of this.summaries.values()) if (s.storedAt >= cutoff && (filter.groupCode === undefined || s.groupCode === filter.groupCode)) out.push(s);
    out.sort((a, b) => b.storedAt.localeCompare(a.storedAt));
    return filter.limit === undefined ? out : out.slice(0, filter.limit);
  }

  async get(matchKey: string): Promise<MatchRecord | undefined> {
    const summary = this.summaries.get(matchKey);
    if (!summary || summary.storedAt < retentionCutoff(Date.now(), this.retentionMs)) return undefined;
    const record = this.files ? (this.files.readRecord(matchKey) as MatchRecord | undefined) : this.inMemory.get(matchKey);
    return record?.matchKey === matchKey ? record : undefined;
  }

  async prune(now: number): Promise<number> {
    const cutoff = retentionCutoff(now, this.retentionMs);
    let n = 0;
    for (const [key, s] of this.summaries) {
      if (s.storedAt >= cutoff) continue;
      this.summaries.delete(key);
      this.inMemory.delete(key);
      this.files?.deleteRecord(key);
      n++;
    }
    return n;
  }

  /** The files are the journal's (journal-files.ts closes them). */
  close(): void {}
}

export class FileDeadLetters implements DeadLetterStore {
  private readonly letters: DeadLetter[];

  constructor(private readonly files: JournalFiles | null) {
    this.letters = files?.loadJson<DeadLetter[]>('dead-letters', []) ?? [];
  }

  async add(letter: DeadLetter): Promise<void> {
    this.letters.push(letter);
    if (this.letters.length > MAX_DEAD_LETTERS) this.letters.splice(0, this.letters.length - MAX_DEAD_LETTERS);
    this.files?.saveJson('dead-letters', this.letters);
  }

  async list(): Promise<DeadLetter[]> {
    return [...this.letters];
  }

  async remove(endpointId: string, eventId: string): Promise<number> {
    const before = this.letters.length;
    for (let i = this.letters.length - 1; i >= 0; i--) if (this.letters[i].endpointId === endpointId && this.letters[i].eventId === eventId) this.letters.splice(i, 1);
    const removed = before - this.letters.length;
    if (removed) this.files?.saveJson('dead-letters', this.letters);
    return removed;
  }

  /** The files are the journal's (journal-files.ts writes what is pending when it closes). */
  close(): void {}
}
