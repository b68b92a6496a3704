// The event journal on disk (docs/events.md, "What is kept where"): in `events/` under STATE_DIR (or
// DATA_DIR), one append-only file per match (`ev-<digest>.ndjson`, a line per event, appended with a
// synchronous write before the event is delivered anywhere, so a SIGKILL loses no event that went
// out), the delivery cursors of the webhook endpoints (`deliveries.json`, rewritten atomically), the
// dead letters (`dead-letters.json`), and the match records (`record-<digest>.json`). Files older
// than the retention are deleted. Owner-only permissions; no secret is written here.
import fs from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../base/hashing.js';
import type { Logger } from '../base/log.js';
import type { StoredEvent } from './types.js';

const EVENTS_PREFIX = 'ev-';
const RECORD_PREFIX = 'record-';
const DELIVERIES = 'deliveries.json';
const DEAD_LETTERS = 'dead-letters.json';
/** Open event files kept (a write to an open descriptor costs ~4 µs, an open-append-close ~60 µs); the least recent is closed past it. */
const MAX_OPEN_FILES = 256;

export class JournalFiles {
  private readonly log: Logger;
  private pendingWrites = new Map<string, unknown>();
  private writeTimer: NodeJS.Timeout | undefined;
  /** matchKey → open descriptor of its event file, least recently written first. */
  private readonly open = new Map<string, number>();

  constructor(readonly dir: string, log: Logger) {
    this.log = log.child({ module: 'events' });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  private eventsFile(matchKey: string): string {
    return path.join(this.dir, `${EVENTS_PREFIX}${sha256Hex(matchKey).slice(0, 32)}.ndjson`);
  }

  private recordFile(matchKey: string): string {
    return path.join(this.dir, `${RECORD_PREFIX}${sha256Hex(matchKey).slice(0, 32)}.json`);
  }

  /** Appends before returning (the kernel has it: a killed process loses nothing written here). */
  append(stored: StoredEvent): void {
    // The row around the event's text made once (journal.ts), not the event serialized again.
    const line = `{"order":${stored.order},"organizationId":${JSON.stringify(stored.organizationId)},"event":${stored.text}}\n`;
    const key = stored.event.matchKey;
    let fd = this.open.get(key);
    if (fd === undefined) {
      fd = fs.openSync(this.eventsFile(key), 'a', 0o600);
      if (this.open.size >= MAX_OPEN_FILES) this.closeFile(this.open.keys().next().value!);
    } else {
      this.open.delete(key);
    }
    this.open.set(key, fd);
    fs.writeSync(fd, line);
    if (stored.event.type === 'match_ended') this.closeFile(key);
  }

  private closeFile(matchKey: string): void {
    const fd = this.open.get(matchKey);
    if (fd === undefined) return;
    this.open.delete(matchKey);
    try { fs.closeSync(fd); } catch { /* already closed */ }
  }

  /** Every stored event, per file in file order (a torn last line, from a crash mid-write, is skipped). */
  loadEvents(): StoredEvent[][] {
    const out: StoredEvent[][] = [];
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.startsWith(EVENTS_PREFIX)) continue;
      const events: StoredEvent[] = [];
      for (const line of fs.readFileSync(path.join(this.dir, name), 'utf8').split('\n')) {
        if (!line) continue;
        try {
          const row = JSON.parse(line) as { order: number; organizationId: string; event: StoredEvent['event'] };
          events.push({ event: row.event, order: row.order, organizationId: row.organizationId, text: JSON.stringify(row.event) });
        } catch {
          this.log.warn({ file: name }, 'event journal: unreadable line skipped');
        }
      }
      if (events.length) out.push(events);
    }
    return out;
  }

  writeRecord(matchKey: string, record: unknown): void {
    const file = this.recordFile(matchKey);
    fs.writeFileSync(file + '.tmp', JSON.stringify(record), { mode: 0o600 });
    fs.renameSync(file + '.tmp', file);
  }

  loadRecords(): unknown[] {
    const out: unknown[] = [];
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.startsWith(RECORD_PREFIX) || !name.endsWith('.json')) continue;
      try {
        out.push(JSON.parse(fs.readFileSync(path.join(this.dir, name), 'utf8')));
      } catch {
        this.log.warn({ file: name }, 'match record unreadable: skipped');
      }
    }
    return out;
  }

  loadJson<T>(name: 'deliveries' | 'dead-letters', fallback: T): T {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.dir, name === 'deliveries' ? DELIVERIES : DEAD_LETTERS), 'utf8')) as T;
    } catch {
      return fallback;
    }
  }

  /**
   * Rewritten atomically, at most every 250 ms (the latest content is kept until then, and made into
   * text only then); flush() writes now. A cursor lost with the process only means a redelivery.
   */
  saveJson(name: 'deliveries' | 'dead-letters', content: unknown): void {
    this.pendingWrites.set(name === 'deliveries' ? DELIVERIES : DEAD_LETTERS, content);
    this.writeTimer ??= setTimeout(() => this.flush(), 250);
  }

  /** The pending JSON files written, every event file closed. */
  close(): void {
    this.flush();
    for (const key of [...this.open.keys()]) this.closeFile(key);
  }

  flush(): void {
    clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    for (const [name, content] of this.pendingWrites) {
      const file = path.join(this.dir, name);
      try {
        fs.writeFileSync(file + '.tmp', JSON.stringify(content), { mode: 0o600 });
        fs.renameSync(file + '.tmp', file);
      } catch (err) {
        this.log.error({ file: name, error: (err as Error).message }, 'event journal: not written');
      }
    }
    this.pendingWrites.clear();
  }

  /** Deletes the event and record files not written for `retentionMs`; returns how many. */
  expire(retentionMs: number, now: number): number {
    let n = 0;
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.startsWith(EVENTS_PREFIX) && !name.startsWith(RECORD_PREFIX)) continue;
      const file = path.join(this.dir, name);
      try {
        if (now - fs.statSync(file).mtimeMs > retentionMs) {
          fs.unlinkSync(file);
          n++;
        }
      } catch { /* gone meanwhile */ }
    }
    return n;
  }
}
