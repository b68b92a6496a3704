// RecordStore and DeadLetterStore on Redis (events/record-store.ts), shared by every node: a record
// is a hash (keys.record: its summary's JSON, the record, its group code) that expires at the end of
// its retention, indexed by a sorted set of storedAt (keys.recordIndex) that each put and prune cut
// by score; the dead letters are one list capped at the newest MAX_DEAD_LETTERS (keys.deadLetters),
// expiring EVENTS_RETENTION_MS after the last one (a redelivered one leaves it: LREM). A record's JSON above DEFLATE_FROM bytes is
// stored deflated (the recorded match's ~35 kB record: docs/events.md, "What is kept where").
// Every call is one script (lua/records.ts) or one read, with the connection's REDIS_TIMEOUT_MS.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { MAX_DEAD_LETTERS, summaryOf, type DeadLetter, type DeadLetterStore, type MatchRecord, type RecordFilter, type RecordStore, type RecordSummary } from '../../record-store.js';
import { OutputFencedError, type OutputFence } from '../../event-outbox.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { RECORDS_SCRIPTS } from './lua/records.js';

/** A record's JSON from this many bytes on is deflated (a short one stays readable with redis-cli). */
const DEFLATE_FROM = 1024;
/** The first byte of a deflated record (a JSON text starts with `{`). */
const DEFLATED = 0x01;

/** How a record is stored in its hash's `r`: its JSON, or DEFLATED and the JSON deflated. */
export function encodeRecord(json: string): string | Buffer {
  if (json.length < DEFLATE_FROM) return json;
  return Buffer.concat([Buffer.from([DEFLATED]), deflateRawSync(json)]);
}

export function decodeRecord(stored: Buffer): string {
  return stored[0] === DEFLATED ? inflateRawSync(stored.subarray(1)).toString('utf8') : stored.toString('utf8');
}

export class RedisRecordStore implements RecordStore {
  /** The command connection with this store's scripts (lua/records.ts). */
  private get lua() { return this.conn.scripts(RECORDS_SCRIPTS); }

  constructor(private readonly conn: RedisConnection, private readonly options: { retentionMs: number }) {}

  /** With a fence, refused (OutputFencedError) when the match's outputs are held at a higher epoch (lua/event-outbox.ts FENCE). */
  async put(record: MatchRecord, fence?: OutputFence): Promise<void> {
    const now = Date.now();
    const storedAt = Date.parse(record.storedAt);
    // The rest of its retention (a record of a match taken over from a lost node was stored earlier).
    const ttlMs = storedAt + this.options.retentionMs - now;
    if (!(ttlMs > 0)) return;
    const { keys } = this.conn;
    const result = await this.lua.odsRecordPut(keys.record(record.matchKey), keys.recordIndex, keys.eventFence(record.matchKey), keys.lease(record.groupCode),
      record.matchKey, storedAt, JSON.stringify(summaryOf(record)), encodeRecord(JSON.stringify(record)), record.groupCode, ttlMs, now - this.options.retentionMs,
      fence ? fence.epoch : '', this.options.retentionMs);
    if (result === -1) throw new OutputFencedError(record.matchKey, fence?.epoch ?? 0);
  }

  async list(filter: RecordFilter = {}): Promise<RecordSummary[]> {
    const { keys } = this.conn;
    const texts = await this.lua.odsRecordList(keys.recordIndex, keys.recordPrefix, Date.now() - this.options.retentionMs, filter.groupCode ?? '', filter.limit ?? 0);
    return texts.map((t) => JSON.parse(t) as RecordSummary);
  }

  async get(matchKey: string): Promise<MatchRecord | undefined> {
    const stored = await this.conn.cmd.hgetBuffer(this.conn.keys.record(matchKey), 'r');
    if (!stored) return undefined;
    const record = JSON.parse(decodeRecord(stored)) as MatchRecord;
    if (record.matchKey !== matchKey || Date.parse(record.storedAt) < Date.now() - this.options.retentionMs) return undefined;
    return record;
  }

  prune(now: number): Promise<number> {
    const { keys } = this.conn;
    return this.lua.odsRecordPrune(keys.recordIndex, keys.recordPrefix, now - this.options.retentionMs);
  }

  /** No timers or subscriptions of its own; the connection is the composition root's. */
  close(): void {}
}

export class RedisDeadLetters implements DeadLetterStore {
  /** The command connection with this store's scripts (lua/records.ts). */
  private get lua() { return this.conn.scripts(RECORDS_SCRIPTS); }

  constructor(private readonly conn: RedisConnection, private readonly options: { retentionMs: number }) {}

  async add(letter: DeadLetter): Promise<void> {
    await this.lua.odsDeadLetterAdd(this.conn.keys.deadLetters, JSON.stringify(letter), MAX_DEAD_LETTERS, this.options.retentionMs);
  }

  async list(): Promise<DeadLetter[]> {
    return (await this.lua.odsDeadLetterList(this.conn.keys.deadLetters)).map((t) => JSON.parse(t) as DeadLetter);
  }

  /** One script: every matching entry removed by its text (LREM). */
  remove(endpointId: string, eventId: string): Promise<number> {
    return this.lua.odsDeadLetterRemove(this.conn.keys.deadLetters, endpointId, eventId);
  }

  /** No timers or subscriptions of its own; the connection is the composition root's. */
  close(): void {}
}
