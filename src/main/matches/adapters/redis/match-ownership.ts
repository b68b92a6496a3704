// MatchOwnership on Redis (matches/match-ownership.ts): which node runs each match, through a lease
// per group code (`lease:<code>` = "<nodeId> <epoch>", PX = REDIS_LEASE_TTL_MS).
//
// The directory's claim script takes the lease (match-directory.ts), and tells this adapter of the
// claims this node holds (ClaimWatcher). Every third of the TTL one script renews the leases of every
// code this node owns (the port says what each outcome means); orphans are adopted with the adopt
// script, which puts the new record in the directory's view. At a graceful shutdown the leases go
// (relinquishAll), so other nodes adopt the matches at once. The scripts: lua/directory.ts.
// The matches' outputs leases (one per match instance: output-leases.ts) are renewed with them.
//
// After an outage of Redis (a restart, a Sentinel failover) this node adopts nothing for one lease
// TTL: a promoted replica may miss the last lease renewals, so live matches look orphaned there
// until their owners, reconnecting too, take their leases again (the renewal's "re-taken").
// Adopting them meanwhile would move running matches and lose what their owners applied since
// their last snapshots (docs/reliability.md, "Redis failover").
import type { DirectoryEntry } from '../../directory-view.js';
import type { Logger } from '../../../base/log.js';
import type { DirectoryRecord } from '../../match-directory.js';
import type { MatchOwnership } from '../../match-ownership.js';
import { RedisOutputLeases } from './output-leases.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { toStored } from './directory-records.js';
import type { ClaimWatcher } from './directory-sync.js';
import type { ClaimReply, RedisMatchDirectory } from './match-directory.js';
import { DIRECTORY_SCRIPTS } from './lua/directory.js';

export interface RedisMatchOwnershipOptions {
  /** REDIS_LEASE_TTL_MS. */
  leaseTtlMs: number;
  log: Logger;
  /** How often the leases are renewed (default: a third of the TTL). Tests set it long to pause a node. */
  renewIntervalMs?: number;
  /** How long a match's output fence is kept after an outputs adoption raised it (EVENTS_RETENTION_MS; default a day). */
  outputsRetentionMs?: number;
}

/** Codes per renewal script call. */
const RENEW_BATCH = 200;
/** Repeated renewal failures are logged once per this interval. */
const LOG_EVERY_MS = 10_000;

export class RedisMatchOwnership implements MatchOwnership, ClaimWatcher {
  readonly nodeId: string;
  private readonly log: Logger;
  private readonly ttl: number;
  /** The codes this node holds the lease of, with their current record (kept when Redis loses it: re-asserted). */
  private readonly owned = new Map<string, DirectoryEntry>();
  /** Code → when (performance.now()) the last claim, adoption or renewal of its lease was sent: its lease lasts at least the TTL from then. */
  private readonly leasedAt = new Map<string, number>();
  private readonly lostListeners = new Set<(groupCode: string, epoch: number) => void>();
  private readonly reassertedListeners = new Set<(record: DirectoryRecord) => void>();
  private renewing: Promise<void> | null = null;
  private renewTimer: NodeJS.Timeout | null;
  private closed = false;
  private lastWarning = 0;
  /** No adoption before this time (Date.now()): set when Redis is reachable again after an outage. */
  private holdAdoptionsUntil = 0;
  private readonly offStatus: () => void;
  private readonly outputs: RedisOutputLeases;

  /** Watches `directory`'s claims and starts renewing. */
  /** The command connection with this store's scripts (lua/directory.ts). */
  private get lua() { return this.conn.scripts(DIRECTORY_SCRIPTS); }

  constructor(private readonly conn: RedisConnection, private readonly directory: RedisMatchDirectory, options: RedisMatchOwnershipOptions) {
    this.nodeId = conn.nodeId;
    this.ttl = options.leaseTtlMs;
    this.log = options.log.child({ module: 'redis-directory' });
    this.outputs = new RedisOutputLeases(conn, { ttlMs: this.ttl, fenceTtlMs: options.outputsRetentionMs ?? 86_400_000, log: this.log });
    directory.watch(this);
    const interval = options.renewIntervalMs ?? Math.max(1, Math.floor(options.leaseTtlMs / 3));
    this.renewTimer = setInterval(() => { void this.renew(); }, interval);
    this.renewTimer.unref();
    this.offStatus = conn.onStatus((up) => { if (up) this.holdAdoptionsUntil = Date.now() + this.ttl; });
  }

  // ---- MatchOwnership ---------------------------------------------------------------------------

  owns(groupCode: string): boolean {
    return this.owned.has(groupCode);
  }

  leaseLeftMs(groupCode: string): number {
    const at = this.leasedAt.get(groupCode);
    return this.owned.has(groupCode) && at !== undefined ? Math.max(0, at + this.ttl - performance.now()) : 0;
  }

  ownerOf(groupCode: string): string | undefined {
    return this.directory.ownerOf(groupCode);
  }

  async orphans(): Promise<string[]> {
    if (this.holdingAdoptions()) return [];
    return this.lua.odsDirOrphans(this.conn.keys.matches, this.conn.keys.lease(''));
  }

  async adopt(groupCode: string, after: number): Promise<DirectoryRecord | undefined> {
    if (this.holdingAdoptions()) return undefined; // as if the lease were live: retried after the hold
    const sentAt = performance.now();
    const entry = await this.directory.adoptScript(groupCode, after);
    if (entry) {
      this.owned.set(groupCode, entry);
      this.leasedAt.set(groupCode, sentAt);
    }
    return entry;
  }

  // ---- OutputLeases (output-leases.ts) ----------------------------------------------------------

  holdOutputs(matchKey: string, epoch: number): Promise<boolean> {
    return this.outputs.hold(matchKey, epoch);
  }

  outputsLeftMs(matchKey: string): number {
    return this.outputs.leftMs(matchKey);
  }

  async outputOrphans(): Promise<string[]> {
    return this.holdingAdoptions() ? [] : this.outputs.orphans();
  }

  async adoptOutputs(matchKey: string): Promise<number | undefined> {
    return this.holdingAdoptions() ? undefined : this.outputs.adopt(matchKey);
  }

  settleOutputs(matchKey: string): Promise<void> {
    return this.outputs.settle(matchKey);
  }

  onOutputsLost(listener: (matchKey: string) => void): () => void {
    return this.outputs.onLost(listener);
  }

  onLost(listener: (groupCode: string, epoch: number) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  onReasserted(listener: (record: DirectoryRecord) => void): () => void {
    this.reassertedListeners.add(listener);
    return () => this.reassertedListeners.delete(listener);
  }

  /**
   * Graceful shutdown (after the matches' last snapshots are stored): this node's leases are
   * deleted where they are still its own, so another node adopts the matches at once instead of
   * after the TTL. Renewal stops. Best effort: a failure leaves the leases to run out.
   */
  async relinquishAll(): Promise<number> {
    this.stopRenewing();
    const held = [...this.owned.values()];
    this.owned.clear();
    let n = 0;
    // The outputs leases are left to lapse (a TTL): this node may have a webhook request in flight,
    // and an adopter that started at once could send the same events alongside it.
    await Promise.all(held.map(async (e) => {
      const deleted = await this.lua.odsDirRelinquish(this.conn.keys.lease(e.groupCode), `${this.nodeId} ${e.epoch}`).catch(() => 0);
      if (deleted === 1) n++;
    }));
    return n;
  }

  /** Stops renewing (the leases run out); the connection is the caller's. */
  close(): void {
    this.closed = true;
    this.offStatus();
    this.stopRenewing();
  }

  /**
   * One renewal of every lease this node holds (the timer calls it every third of the TTL; at
   * once after an outage). Concurrent calls share the one under way.
   */
  renew(): Promise<void> {
    if (!this.renewing) this.renewing = this.renewOnce().finally(() => { this.renewing = null; });
    return this.renewing;
  }

  // ---- ClaimWatcher (the directory's claims) ----------------------------------------------------

  claimed(entry: DirectoryEntry): void {
    this.owned.set(entry.groupCode, entry);
    // Told at the claim's answer: a round trip after Redis set the lease (the first renewal, a third of the TTL on, counts from its sending).
    this.leasedAt.set(entry.groupCode, performance.now());
  }

  released(groupCode: string, epoch: number): void {
    if (this.owned.get(groupCode)?.epoch !== epoch) return;
    this.owned.delete(groupCode);
    this.leasedAt.delete(groupCode);
  }

  changed(entry: DirectoryEntry): void {
    if (this.owned.get(entry.groupCode)?.epoch === entry.epoch) this.owned.set(entry.groupCode, entry);
  }

  async recover(): Promise<void> {
    await this.renewing?.catch(() => undefined);
    await this.renew();
  }

  // ---- Renewal ----------------------------------------------------------------------------------

  private holdingAdoptions(): boolean {
    return Date.now() < this.holdAdoptionsUntil;
  }

  private stopRenewing(): void {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
  }

  private async renewOnce(): Promise<void> {
    if (this.closed) return;
    this.directory.pruneTombstones();
    try {
      await this.outputs.renew();
    } catch (err) {
      this.warnLimited({ error: (err as Error).message }, 'outputs lease renewal failed (retrying)');
    }
    const held = [...this.owned.values()].map((e) => [e.groupCode, e.epoch] as const);
    const k = this.conn.keys;
    for (let i = 0; i < held.length; i += RENEW_BATCH) {
      const batch = held.slice(i, i + RENEW_BATCH);
      let results: number[];
      const sentAt = performance.now();
      try {
        results = await this.lua.odsDirRenew(this.nodeId, this.ttl, k.lease(''), k.match(''), k.ended(''), ...batch.flat());
      } catch (err) {
        // Redis unreachable: the node keeps its matches (the lease TTL runs in Redis, which is down too).
        this.warnLimited({ error: (err as Error).message, leases: held.length }, 'lease renewal failed (retrying)');
        return;
      }
      for (let j = 0; j < batch.length; j++) {
        const [code, epoch] = batch[j];
        const current = this.owned.get(code);
        if (!current || current.epoch !== epoch) continue; // released or re-claimed meanwhile
        if (results[j] === 1 || results[j] === 2) this.leasedAt.set(code, sentAt);
        if (results[j] === 0) {
          this.owned.delete(code);
          this.log.warn({ groupCode: code, epoch }, 'match lease lost to another node');
          this.emit(this.lostListeners, code, epoch);
        } else if (results[j] === 3) {
          await this.reassert(current);
        }
      }
    }
  }

  /** Redis lost the record and the lease: claimed again, without limits, with an epoch above the old one. */
  private async reassert(old: DirectoryEntry): Promise<void> {
    const code = old.groupCode;
    let result: ClaimReply;
    try {
      result = await this.directory.claimScript(toStored(old, this.nodeId), { after: old.epoch });
    } catch (err) {
      this.warnLimited({ groupCode: code, error: (err as Error).message }, 'match re-assertion failed (retrying)');
      return;
    }
    const stillOwned = this.owned.get(code)?.epoch === old.epoch;
    if (result.status !== 'ok') {
      // Another node created the code meanwhile: it is theirs.
      if (!stillOwned) return;
      this.owned.delete(code);
      this.log.warn({ groupCode: code, epoch: old.epoch }, 'match lost: re-created by another node after redis lost it');
      this.emit(this.lostListeners, code, old.epoch);
      return;
    }
    if (!stillOwned) {
      // Released here while the claim was under way: release the new claim too.
      this.directory.sendRelease(code, result.record.epoch, old.keyId);
      return;
    }
    // The view's record (if any) has the old epoch: the new claim replaces it.
    const entry = this.directory.installReply(result.record);
    this.owned.set(code, entry);
    this.leasedAt.set(code, performance.now());
    this.log.info({ groupCode: code, epoch: entry.epoch, oldEpoch: old.epoch }, 'match re-asserted after redis lost it');
    this.emit(this.reassertedListeners, entry);
  }

  private emit<A extends unknown[]>(listeners: Set<(...args: A) => void>, ...args: A): void {
    for (const listener of listeners) {
      try {
        listener(...args);
      } catch (err) {
        this.log.error({ error: (err as Error).message }, 'directory listener failed');
      }
    }
  }

  private warnLimited(fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < LOG_EVERY_MS) return;
    this.lastWarning = now;
    this.log.warn(fields, message);
  }
}
