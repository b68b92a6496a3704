// The leases of the matches' outputs on Redis (matches/match-ownership.ts `OutputLeases`), one per
// match instance: `olease:<matchKey>` = "<nodeId> <epoch>" (PX = REDIS_LEASE_TTL_MS) and the set
// `outputs` of the matches whose outputs are unsettled. Part of RedisMatchOwnership, which renews
// them with the group codes' leases (one script call per batch) and holds adoptions after an outage
// for both alike. The scripts: lua/output-leases.ts.
import type { Logger } from '../../../base/log.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { OUTPUT_LEASES_SCRIPTS } from './lua/output-leases.js';

/** Matches per renewal script call. */
const RENEW_BATCH = 200;

export class RedisOutputLeases {
  /** matchKey → this node's epoch for its outputs, and when (performance.now()) the last hold or adoption of it was sent. */
  private readonly held = new Map<string, { epoch: number; at: number }>();
  private readonly lostListeners = new Set<(matchKey: string) => void>();

  /** The command connection with this store's scripts (lua/output-leases.ts). */
  private get lua() { return this.conn.scripts(OUTPUT_LEASES_SCRIPTS); }

  constructor(private readonly conn: RedisConnection, private readonly options: { ttlMs: number; fenceTtlMs: number; log: Logger }) {}

  async hold(matchKey: string, epoch: number): Promise<boolean> {
    const k = this.conn.keys;
    const sentAt = performance.now();
    const [ok] = await this.lua.odsOutputsHold(k.outputs, this.conn.nodeId, this.options.ttlMs, k.outputLease(''), k.eventFence(''), this.options.fenceTtlMs, matchKey, epoch);
    const current = this.held.get(matchKey);
    if (ok === 1 && (!current || current.epoch <= epoch)) this.held.set(matchKey, { epoch, at: sentAt });
    return ok === 1;
  }

  leftMs(matchKey: string): number {
    const h = this.held.get(matchKey);
    return h ? Math.max(0, h.at + this.options.ttlMs - performance.now()) : 0;
  }

  orphans(): Promise<string[]> {
    return this.lua.odsOutputsOrphans(this.conn.keys.outputs, this.conn.keys.outputLease(''));
  }

  async adopt(matchKey: string): Promise<number | undefined> {
    const k = this.conn.keys;
    const sentAt = performance.now();
    const epoch = await this.lua.odsOutputsAdopt(k.outputs, k.epoch, this.conn.nodeId, this.options.ttlMs, k.outputLease(''), k.eventFence(''),
      this.options.fenceTtlMs, k.lease(''), k.match(''), k.eventStream(''), matchKey);
    if (epoch === null || epoch === undefined) return undefined;
    this.held.set(matchKey, { epoch: Number(epoch), at: sentAt });
    return Number(epoch);
  }

  async settle(matchKey: string): Promise<void> {
    const h = this.held.get(matchKey);
    this.held.delete(matchKey);
    if (!h) return;
    await this.lua.odsOutputsSettle(this.conn.keys.outputLease(matchKey), this.conn.keys.outputs, `${this.conn.nodeId} ${h.epoch}`, matchKey);
  }

  onLost(listener: (matchKey: string) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Every outputs lease this node holds renewed; those held at a higher epoch elsewhere are dropped and reported lost. Throws when Redis does not answer. */
  async renew(): Promise<void> {
    const all = [...this.held].map(([key, h]) => [key, h.epoch] as const);
    const k = this.conn.keys;
    for (let i = 0; i < all.length; i += RENEW_BATCH) {
      // Still held at that epoch when sent: a lease settled meanwhile is not taken again (its DEL went first).
      const batch = all.slice(i, i + RENEW_BATCH).filter(([key, epoch]) => this.held.get(key)?.epoch === epoch);
      if (!batch.length) continue;
      const sentAt = performance.now();
      const results = await this.lua.odsOutputsHold(k.outputs, this.conn.nodeId, this.options.ttlMs, k.outputLease(''), k.eventFence(''), this.options.fenceTtlMs, ...batch.flat());
      for (let j = 0; j < batch.length; j++) {
        const [key, epoch] = batch[j];
        if (this.held.get(key)?.epoch !== epoch) continue; // settled or held at another epoch meanwhile
        if (results[j] === 1) {
          this.held.set(key, { epoch, at: sentAt });
          continue;
        }
        this.held.delete(key);
        this.options.log.warn({ matchKey: key, epoch }, 'match outputs held by another node now');
        for (const listener of this.lostListeners) {
          try { listener(key); } catch (err) { this.options.log.error({ error: (err as Error).message }, 'outputs listener failed'); }
        }
      }
    }
  }
}
