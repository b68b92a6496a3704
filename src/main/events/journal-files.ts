// The event journal on disk (docs/events.md, "What is kept where"): in `events/` under STATE_DIR (or
// DATA_DIR), one append-only file per match (`ev-<digest>.ndjson`, a line per event, appended with a
// synchronous write before the event is delivered anywhere, so a SIGKILL loses no event that went
// out), the delivery cursors of the webhook endpoints (`deliveries.json`, rewritten atomically), the
// batch endpoints' batches being retried (`batches.json`), the dead letters (`dead-letters.json`), and the match records (`record-<digest>.json`). Files older
// than the retention are deleted. Owner-only permissions; no secret is written here. The embedded
// EventOutbox is the port's adapter on these files (events/adapters/state-dir/event-outbox.ts): `write`
// is the journal's synchronous append, `append` the port's checked one.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../base/atomic-file.js';
import { sha256Hex } from '../base/hashing.js';
import type { Logger } from '../base/log.js';
import type { OutboxEvent } from './event-outbox.js';
import { storedEvent, type MatchEvent, type StoredEvent } from './types.js';

const EVENTS_PREFIX = 'ev-';
const RECORD_PREFIX = 'record-';
const DELIVERIES = 'deliveries.json';
/** The JSON files (saveJson): the delivery cursors, the dead letters, a batch endpoint's failed batch (delivery.ts, kept to be sent again under its webhook-id). */
const JSON_FILES = { deliveries: DELIVERIES, 'dead-letters': 'dead-letters.json', batches: 'batches.json' } as const;
export type JsonFileName = keyof typeof JSON_FILES;
/** Open event files kept (a write to an open descriptor costs ~4 µs, an open-append-close ~60 µs); the least recent is closed past it. */
const MAX_OPEN_FILES = 256;

export class JournalFiles {
  private readonly log: Logger;
  /** matchKey → the last seq written (known once the match was written or read here). */
  private readonly lastSeq = new Map<string, number>();
  /** endpoint id → matchKey → the last seq it has: the deliveries file's content, loaded once. */
  private deliveries: Record<string, Record<string, number>> | null = null;
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
  write(stored: StoredEvent): void {
    this.writeLine(stored.matchKey, stored.seq, stored.order, stored.organizationId, stored.text, stored.type === 'match_ended', stored.keptAt);
  }

  async append(e: OutboxEvent): Promise<boolean> {
    const top = this.lastSeq.get(e.matchKey) ?? (await this.events(e.matchKey)).at(-1)?.seq ?? 0;
    if (e.seq !== top + 1) return false;
    this.writeLine(e.matchKey, e.seq, e.order, e.organizationId, e.text, false);
    return true;
  }

  async events(matchKey: string, afterSeq = 0): Promise<OutboxEvent[]> {
    let text = '';
    try { text = fs.readFileSync(this.eventsFile(matchKey), 'utf8'); } catch { return []; }
    const out: OutboxEvent[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const row = JSON.parse(line) as { order: number; organizationId: string; event: MatchEvent };
        if (row.event.seq === out.length + 1) out.push({ matchKey, seq: row.event.seq, order: row.order, organizationId: row.organizationId, text: JSON.stringify(row.event) });
      } catch { /* a torn last line */ }
    }
    this.lastSeq.set(matchKey, out.length);
    return out.filter((e) => e.seq > afterSeq);
  }

  /** The deliveries file's cursors, one object for the process (the webhook delivery moves them, saveJson writes them). */
  deliveryCursors(): Record<string, Record<string, number>> {
    return (this.deliveries ??= this.loadJson<Record<string, Record<string, number>>>('deliveries', {}));
  }

  async advance(endpointId: string, matchKey: string, seq: number): Promise<void> {
    const all = this.deliveryCursors();
    const mine = (all[endpointId] ??= {});
    if (seq <= (mine[matchKey] ?? 0)) return;
    mine[matchKey] = seq;
    this.saveJson('deliveries', all);
  }

  async cursors(matchKey: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [id, mine] of Object.entries(this.deliveryCursors())) if (mine[matchKey] !== undefined) out[id] = mine[matchKey];
    return out;
  }

  private writeLine(key: string, seq: number, order: number, organizationId: string, text: string, last: boolean, keptAt?: number): void {
    const kept = keptAt === undefined ? '' : `"keptAt":${keptAt},`;
    const line = `{"order":${order},"organizationId":${JSON.stringify(organizationId)},${kept}"event":${text}}\n`;
    this.lastSeq.set(key, seq);
    let fd = this.open.get(key);
    if (fd === undefined) {
      fd = fs.openSync(this.eventsFile(key), 'a', 0o600);
      if (this.open.size >= MAX_OPEN_FILES) this.closeFile(this.open.keys().next().value!);
    } else {
      this.open.delete(key);
    }
    this.open.set(key, fd);
    fs.writeSync(fd, line);
    if (last) this.closeFile(key);
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
          const row = JSON.parse(line) as { order: number; organizationId: string; keptAt?: number; event: MatchEvent };
          events.push(storedEvent(row.event, JSON.stringify(row.event), { order: row.order, organizationId: row.organizationId, ...(typeof row.keptAt === 'number' ? { keptAt: row.keptAt } : {}) }));
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
    writeFileAtomicSync(file, JSON.stringify(record));
  }

  /** One match's record from its file (undefined when there is none or it cannot be read). */
  readRecord(matchKey: string): unknown {
    try {
      return JSON.parse(fs.readFileSync(this.recordFile(matchKey), 'utf8'));
    } catch {
      return undefined;
    }
  }

  /** Deletes one match's record file (past the retention: adapters/state-dir/record-store.ts). */
  deleteRecord(matchKey: string): void {
    try { fs.unlinkSync(this.recordFile(matchKey)); } catch { /* not there */ }
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

  loadJson<T>(name: JsonFileName, fallback: T): T {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.dir, JSON_FILES[name]), 'utf8')) as T;
    } catch {
      return fallback;
    }
  }

  /**
   * Rewritten atomically, at most every 250 ms (the latest content is kept until then, and made into
   * text only then); flush() writes now. A cursor lost with the process only means a redelivery.
   */
  saveJson(name: JsonFileName, content: unknown): void {
    this.pendingWrites.set(JSON_FILES[name], content);
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
        writeFileAtomicSync(file, JSON.stringify(content));
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
