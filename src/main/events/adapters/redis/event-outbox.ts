// EventOutbox on Redis (events/event-outbox.ts), shared by every node: a stream per match
// (keys.eventStream, entry id `0-<seq>`, fields o: order, g: organisation, e: the event's JSON) and a
// hash of the endpoints' cursors per match (keys.eventCursors). Both expire EVENTS_RETENTION_MS after
// their last write. The append script takes seq n only right after n - 1 (lua/event-outbox.ts), so a
// node that numbers a match from a stale view is refused rather than writing a second event n.
// Which node owns a match's outputs is MatchOwnership's (the group code's lease while the match
// runs, its outputs lease while an endpoint still lacks events: matches/adapters/redis/match-ownership.ts).
// Every write is fenced by the writer's epoch (keys.eventFence, and the group code's lease for a
// running match: lua/event-outbox.ts FENCE).
import { OutputFencedError, type EventOutbox, type OutboxEvent, type OutputFence } from '../../event-outbox.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { EVENT_OUTBOX_SCRIPTS } from './lua/event-outbox.js';

export class RedisEventOutbox implements EventOutbox {
  /** The command connection with this store's scripts (lua/event-outbox.ts). */
  private get lua() { return this.conn.scripts(EVENT_OUTBOX_SCRIPTS); }

  constructor(private readonly conn: RedisConnection, private readonly options: { retentionMs: number }) {}

  async append(event: OutboxEvent, fence: OutputFence): Promise<boolean> {
    const k = this.conn.keys;
    const result = await this.lua.odsEventAppend(k.eventStream(event.matchKey), k.eventFence(event.matchKey), k.lease(fence.groupCode),
      event.seq, event.order, event.organizationId, event.text, this.options.retentionMs, fence.epoch, fence.live ? '1' : '0');
    if (result === -1) throw new OutputFencedError(event.matchKey, fence.epoch);
    return result === 1;
  }

  async events(matchKey: string, afterSeq = 0): Promise<OutboxEvent[]> {
    const entries = await this.conn.cmd.xrange(this.conn.keys.eventStream(matchKey), `0-${afterSeq + 1}`, '+');
    return entries.map(([id, fields]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]] = fields[i + 1];
      return { matchKey, seq: Number(id.slice(2)), order: Number(f.o), organizationId: f.g ?? '', text: f.e ?? '' };
    });
  }

  async advance(endpointId: string, matchKey: string, seq: number, fence: OutputFence): Promise<void> {
    const k = this.conn.keys;
    const result = await this.lua.odsEventAdvance(k.eventCursors(matchKey), k.eventFence(matchKey), k.lease(fence.groupCode),
      endpointId, seq, this.options.retentionMs, fence.epoch, fence.live ? '1' : '0');
    if (result === -1) throw new OutputFencedError(matchKey, fence.epoch);
  }

  async cursors(matchKey: string): Promise<Record<string, number>> {
    const raw = await this.conn.cmd.hgetall(this.conn.keys.eventCursors(matchKey));
    const out: Record<string, number> = {};
    for (const [id, seq] of Object.entries(raw)) out[id] = Number(seq);
    return out;
  }

  /** No timers or subscriptions of its own; the connection is the composition root's. */
  close(): void {}
}
