// InputLog on Redis (matches/input-log.ts), shared by every node: a stream per match (keys.inputLog)
// whose entry ids are `<epoch>-<n>` (the writer's owner epoch, the input's number in the match),
// fields `t` (receive time), `r` (the payload as received) and, for an auxiliary payload, `m` and `p`
// (its match id and player id). Ids grow across owners, since each adoption raises the epoch, and
// Redis refuses an XADD whose id is not above the stream's last id, which the stream keeps after
// XTRIM too: `since` adds a fence entry `<epoch>-0` first (lua/input-log.ts), after which every
// append of a lower epoch is refused by Redis itself, whatever the timing; `covered` and `drop` of
// a lower epoch than the last id's change nothing either (scripts comparing it).
//
// `flush` does not wait (the pool calls it right before it posts a batch to a shard): it writes what
// `append` buffered as one script call on the command connection (lua/input-log.ts APPEND: an XADD
// per input, a PEXPIRE per match, chunked for a flush of thousands), so the inputs reach Redis before
// any command sent after them, and handles the reply later: one command and one reply per flush
// rather than two per input (the main thread's CPU per input: docs/benchmarks.md, "Input log"). A refused append (a newer owner fenced the log) is logged once per match and epoch; inputs
// whose write failed (Redis unreachable or stalled: commands fail fast, connection.ts) are logged,
// not retried: they were applied in memory all the same, and the match's next stored snapshot covers
// them, so what a takeover can miss is bounded by the inputs of an outage up to that snapshot.
// Payloads are observer data, not secrets, and never logged (sizes only).
//
// Garbage: every write (append, `since`, `covered`) sets the stream's TTL (default 1 hour), so the
// log of a match whose node vanished and that nobody adopted goes by itself.
import type { Logger } from '../../../base/log.js';
import type { InputLog, LoggedInput } from '../../input-log.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { INPUT_LOG_SCRIPTS } from './lua/input-log.js';

export interface RedisInputLogOptions {
  log: Logger;
  /** The stream's expiry after its last write (ms). */
  ttlMs?: number;
}

const DEFAULT_TTL_MS = 60 * 60_000;
/** Failed writes are logged at most once per this (an outage would otherwise log every batch). */
const FAILURE_LOG_EVERY_MS = 10_000;
/** What Redis answers to an XADD whose id is not above the stream's last id. */
const REFUSED = /equal or smaller than the target stream top item/;
/**
 * A flush's inputs go in script calls of at most this many inputs and about this many payload
 * characters: a script runs alone on Redis (1,000 recorded inputs took it 6–9 ms on the shared
 * bench machine, 250 about 2 ms), and the node's CPU per input was the same for chunks of 100 to
 * 10,000 (docs/benchmarks.md, "Input log (issue 35)").
 */
const CHUNK_INPUTS = 250;
const CHUNK_CHARS = 1 << 18;

interface Pending { groupCode: string; epoch: number; input: LoggedInput }

export class RedisInputLog implements InputLog {
  private readonly log: Logger;
  private readonly ttlMs: number;
  private pending: Pending[] = [];
  /** The epoch each match's refused append was last logged at (once per match and epoch). */
  private readonly refusedAt = new Map<string, number>();
  /** Inputs whose write failed since the last line that said so, and that line's time. */
  private unlogged = 0;
  private lastFailureLog = 0;

  /** The command connection with this store's scripts (lua/input-log.ts). */
  private get lua() { return this.conn.scripts(INPUT_LOG_SCRIPTS); }

  constructor(private readonly conn: RedisConnection, options: RedisInputLogOptions) {
    this.log = options.log.child({ module: 'input-log' });
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  }

  append(groupCode: string, epoch: number, input: LoggedInput): void {
    this.pending.push({ groupCode, epoch, input });
  }

  flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    let start = 0;
    let chars = 0;
    for (let i = 0; i < batch.length; i++) {
      chars += batch[i].input.raw.length;
      if (i + 1 - start < CHUNK_INPUTS && chars < CHUNK_CHARS && i + 1 < batch.length) continue;
      this.write(start === 0 && i + 1 === batch.length ? batch : batch.slice(start, i + 1));
      start = i + 1;
      chars = 0;
    }
  }

  /** One script call (lua/input-log.ts APPEND): the chunk's streams as its keys, then its inputs in order. */
  private write(chunk: Pending[]): void {
    const index = new Map<string, number>();
    const keys: string[] = [];
    const args: (string | number)[] = [];
    for (const { groupCode, epoch, input } of chunk) {
      let k = index.get(groupCode);
      if (k === undefined) {
        k = keys.push(this.conn.keys.inputLog(groupCode));
        index.set(groupCode, k);
      }
      if (input.kind === 'aux') args.push(-k, `${epoch}-${input.n}`, input.now, input.raw, input.via ?? '', input.matchId, input.playerId);
      else args.push(k, `${epoch}-${input.n}`, input.now, input.raw, input.via ?? '');
    }
    this.lua.odsInputAppend(keys.length, keys, this.ttlMs, args).then(
      (failed) => { if (failed.length > 0) this.settle(chunk, failed); },
      (err: Error) => this.settle(chunk, null, err.message),
    );
  }

  async since(groupCode: string, epoch: number, fromEpoch: number, after: number): Promise<LoggedInput[]> {
    const entries = await this.lua.odsInputSince(this.conn.keys.inputLog(groupCode), epoch > 0 ? `${epoch}-0` : '',
      `${fromEpoch}-${after + 1}`, after, this.ttlMs);
    const out: LoggedInput[] = [];
    for (const [id, fields] of entries) {
      const input = this.parse(id, fields);
      if (input) out.push(input);
      else this.log.error({ groupCode, id }, 'unreadable input log entry skipped');
    }
    return out;
  }

  covered(groupCode: string, epoch: number, n: number): void {
    // MINID: every entry below `<epoch>-<n + 1>` goes (those of earlier epochs too); the last id
    // stays. Not when a newer owner fenced the log: it may not have read them yet.
    this.lua.odsInputCover(this.conn.keys.inputLog(groupCode), epoch, `${epoch}-${n + 1}`, this.ttlMs)
      .catch((err: Error) => this.log.warn({ groupCode, error: err.message }, 'input log not trimmed'));
  }

  drop(groupCode: string, epoch: number): void {
    // What is buffered for the match goes too: written after the delete, it would start the log again.
    if (this.pending.some((p) => p.groupCode === groupCode)) this.pending = this.pending.filter((p) => p.groupCode !== groupCode);
    this.refusedAt.delete(groupCode);
    this.lua.odsInputDrop(this.conn.keys.inputLog(groupCode), epoch)
      .catch((err: Error) => this.log.warn({ groupCode, error: err.message }, 'input log not deleted (it expires)'));
  }

  /** Flushes what is buffered; the connection is the composition root's. */
  close(): void {
    this.flush();
  }

  /**
   * What a chunk's write did not add: `failed` the script's answer (`[i, error, …]`, i from 1), or
   * null when the whole call failed (`error`: every input of the chunk).
   */
  private settle(chunk: Pending[], failed: (number | string)[] | null, error = ''): void {
    let count = failed ? 0 : chunk.length;
    for (let j = 0; failed && j < failed.length; j += 2) {
      const { groupCode, epoch, input } = chunk[Number(failed[j]) - 1];
      const message = String(failed[j + 1]);
      if (REFUSED.test(message)) {
        if (this.refusedAt.get(groupCode) === epoch) continue;
        this.refusedAt.set(groupCode, epoch);
        this.log.warn({ groupCode, epoch, n: input.n }, 'input log append refused: a newer owner holds the match\'s log (this node was deposed)');
        continue;
      }
      count++;
      error = message;
    }
    if (count === 0) return;
    this.unlogged += count;
    const now = Date.now();
    if (now - this.lastFailureLog < FAILURE_LOG_EVERY_MS) return;
    this.log.warn({ inputs: this.unlogged, error }, 'inputs not written to the input log (a takeover before the next snapshot would miss them)');
    this.unlogged = 0;
    this.lastFailureLog = now;
  }

  private parse(id: string, fields: string[]): LoggedInput | undefined {
    const f: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]] = fields[i + 1];
    const n = Number(id.slice(id.indexOf('-') + 1));
    const now = Number(f.t);
    if (!Number.isSafeInteger(n) || !Number.isFinite(now) || f.r === undefined) return undefined;
    const via = f.v !== undefined ? { via: f.v } : {};
    if (f.m !== undefined && f.p !== undefined) return { n, now, kind: 'aux', matchId: f.m, playerId: f.p, raw: f.r, ...via };
    return { n, now, kind: 'obs', raw: f.r, ...via };
  }
}
