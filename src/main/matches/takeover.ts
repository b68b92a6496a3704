// Scale-out: matches whose node is gone are taken over by another node, from their latest snapshot
// in Redis (docs/architecture.md, "Scale-out on Redis"; the lease and the fencing epoch:
// matches/match-ownership.ts).
//
//   - Every half lease TTL (with jitter, so nodes do not all try at once) a node looks for orphans
//     (a live record without a lease) and adopts them: overlays get frames again even when no
//     observer comes back.
//   - At once, and every ADOPT_RETRY_MS after, for a match whose ingestion data this node holds
//     because nobody received it (matches/owner-delivery.ts): an observer that reconnected here
//     after its match's node died gets its match here as soon as the lease lapses.
//   - In the same sweep, the outputs orphans (matches/match-ownership.ts `OutputLeases`: a match whose
//     outputs are unsettled, an endpoint still lacking events, and whose node is gone; typically one
//     that ended, so its group code has no record to adopt) are adopted, outputs only, without a
//     snapshot: the event journal reads them from the shared outbox (journal.takeOver with the
//     outputs lease's epoch) and delivers the rest.
//   - A node that lost a lease to another stops running that match (lifecycle.evict); a node that
//     re-asserted a match after Redis lost it fences with the new epoch (lifecycle.refence).
import crypto from 'node:crypto';
import type { MainEventBus } from '../base/events.js';
import type { Logger } from '../base/log.js';
import type { MatchRouting } from './routing.js';
import type { MatchLifecycle } from './lifecycle.js';
import type { LocalRoutes } from './local-routes.js';
import type { MatchDirectory } from './match-directory.js';
import type { MatchOwnership } from './match-ownership.js';
import type { MatchSnapshot, SnapshotStore } from './snapshot-store.js';
import { lastForwarded, type OwnerDelivery } from './owner-delivery.js';
import { snapshotMeta } from '../shards/snapshot-meta.js';

const ADOPT_RETRY_MS = 250;

export interface TakeoverDeps {
  log: Logger;
  ownership: MatchOwnership;
  directory: MatchDirectory;
  snapshots: SnapshotStore & { load(groupCode: string): Promise<MatchSnapshot | undefined> };
  lifecycle: MatchLifecycle;
  routing: MatchRouting;
  routes: LocalRoutes;
  remote: OwnerDelivery;
  events: MainEventBus;
  leaseTtlMs: number;
  /**
   * Its outputs taken over in the same step (the event journal reads the match from the shared
   * outbox: journal.takeOver); an outputs orphan's alone with `epoch` (its outputs lease's). Absent
   * (events off): this node adopts no outputs orphan.
   */
  outputs?: (groupCode: string, matchKey: string, epoch?: number) => void;
}

/**
 * The match's instance key (events, records: `<code>-<recordStart base 36>`, workers/shard/match-events.ts)
 * from its snapshot's bookkeeping (workers/shard/snapshots.ts: `{"slot":{…"recordStart":n…},"match":…}`); undefined when absent.
 */
export function matchKeyOfSnapshot(groupCode: string, text: string): string | undefined {
  const start = snapshotMeta(text)?.recordStart;
  return start !== undefined ? `${groupCode}-${start.toString(36)}` : undefined;
}

export class MatchTakeover {
  readonly stats = { adopted: 0, outputsAdopted: 0, evicted: 0, reasserted: 0, lostWithoutSnapshot: 0 };
  private readonly log: Logger;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly unsubscribe: Array<() => void> = [];
  /** Codes being adopted now (one attempt at a time per code). */
  private readonly inFlight = new Set<string>();
  /** The epoch a match had when its data started to be held here: a different one means a new owner. */
  private readonly heldSince = new Map<string, number>();
  /** When held data was last offered again to a live owner (its subscriber may have blinked). */
  private readonly offeredAt = new Map<string, number>();
  private closed = false;

  constructor(private readonly deps: TakeoverDeps) {
    this.log = deps.log.child({ module: 'cluster' });
    this.unsubscribe.push(
      deps.ownership.onLost((groupCode) => {
        if (deps.lifecycle.evict(groupCode)) this.stats.evicted++;
      }),
      deps.ownership.onReasserted((record) => {
        this.stats.reasserted++;
        deps.lifecycle.refence(record);
      }),
      deps.events.on('matchOwnerMissing', ({ groupCode }) => this.ownerMissing(groupCode)),
    );
  }

  start(): void {
    const sweepMs = Math.max(500, Math.floor(this.deps.leaseTtlMs / 2));
    const sweep = () => {
      if (this.closed) return;
      void this.sweep().finally(() => {
        if (this.closed) return;
        const t = setTimeout(sweep, sweepMs / 2 + crypto.randomInt(sweepMs));
        t.unref();
        this.timers.push(t);
      });
    };
    const first = setTimeout(sweep, crypto.randomInt(sweepMs));
    first.unref();
    this.timers.push(first);
    const retry = setInterval(() => { for (const code of this.deps.remote.waiting()) void this.tryAdopt(code); }, ADOPT_RETRY_MS);
    retry.unref();
    this.timers.push(retry);
  }

  /** Nobody received data for `groupCode` (owner-delivery.ts): adopt it as soon as its lease lapses. */
  private ownerMissing(groupCode: string): void {
    if (!this.heldSince.has(groupCode)) this.heldSince.set(groupCode, this.deps.directory.get(groupCode)?.epoch ?? 0);
    void this.tryAdopt(groupCode);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    for (const u of this.unsubscribe) u();
  }

  private async sweep(): Promise<void> {
    let orphans: string[];
    try {
      orphans = await this.deps.ownership.orphans();
    } catch {
      return; // Redis unreachable: the next sweep tries again
    }
    // A random starting point spreads a dead node's matches over the nodes that sweep at the same time.
    const start = orphans.length > 0 ? crypto.randomInt(orphans.length) : 0;
    for (const code of [...orphans.slice(start), ...orphans.slice(0, start)]) await this.tryAdopt(code);
    await this.adoptOutputs();
  }

  /** The outputs orphans adopted here (one node gets each), each handed to the event journal with its new epoch. */
  private async adoptOutputs(): Promise<void> {
    const { ownership, outputs } = this.deps;
    if (!outputs || this.closed) return;
    try {
      const orphans = await ownership.outputOrphans();
      const start = orphans.length > 0 ? crypto.randomInt(orphans.length) : 0;
      for (const matchKey of [...orphans.slice(start), ...orphans.slice(0, start)]) {
        if (this.closed) return;
        const epoch = await ownership.adoptOutputs(matchKey);
        if (epoch === undefined) continue;
        this.stats.outputsAdopted++;
        this.log.info({ matchKey, epoch }, 'outputs of a lost node\'s match adopted');
        outputs(matchKey.slice(0, matchKey.lastIndexOf('-')), matchKey, epoch);
      }
    } catch (err) {
      this.log.warn({ error: (err as Error).message }, 'outputs orphans not adopted; retried');
    }
  }

  private async tryAdopt(groupCode: string): Promise<void> {
    const { directory, routes, remote, ownership, snapshots, lifecycle } = this.deps;
    if (this.closed || this.inFlight.has(groupCode)) return;
    if (routes.get(groupCode)) return this.delivered(groupCode, true);
    const known = directory.get(groupCode);
    if (!known) {
      remote.forget(groupCode);
      this.heldSince.delete(groupCode);
      this.offeredAt.delete(groupCode);
      return;
    }
    this.inFlight.add(groupCode);
    try {
      // The adoption script raises the epoch above the record's in Redis, and a snapshot never has a
      // higher epoch than its record: the snapshot is read only once the match is ours.
      // Adopted by an earlier attempt whose snapshot read failed: the lease is ours already.
      const record = ownership.owns(groupCode) ? known : await ownership.adopt(groupCode, known.epoch);
      if (!record) {
        // The lease is live: another node adopted it (a new epoch: the held data goes there), or the old
        // owner is still there and its inbox subscriber blinked (a Redis failover: it subscribes again
        // when it reconnects), so the held data is offered to it again, every half lease at most.
        const since = this.heldSince.get(groupCode);
        const now = directory.get(groupCode);
        if (since === undefined || !now || ownership.ownerOf(groupCode) === ownership.nodeId) return;
        if (now.epoch !== since) return this.delivered(groupCode, false);
        const at = Date.now();
        if (at - (this.offeredAt.get(groupCode) ?? 0) < this.deps.leaseTtlMs / 2) return;
        this.offeredAt.set(groupCode, at);
        remote.release(groupCode); // sent to the inbox again; held again if still nobody takes it
        return;
      }
      // The input log closed to the old owner before its snapshot is read (match-inputs.ts fence).
      await lifecycle.fenceInputs(record);
      const snapshot = await snapshots.load(groupCode);
      if (!snapshot) {
        // Neither a snapshot nor its creation (kept before the logon's ack: a Redis write that failed): nothing to rebuild it from.
        this.stats.lostWithoutSnapshot++;
        this.log.error({ groupCode }, 'orphaned match has no snapshot: it cannot be taken over and is removed');
        directory.release(groupCode, record.epoch);
        remote.forget(groupCode);
        this.heldSince.delete(groupCode);
        return;
      }
      // The inputs its last owner applied after that snapshot (the log closed to that owner first).
      const logged = await lifecycle.loggedAfter(record, snapshot);
      this.stats.adopted++;
      lifecycle.adopt(record, snapshot, logged);
      const matchKey = snapshot.created ? `${groupCode}-${snapshot.created.now.toString(36)}` : matchKeyOfSnapshot(groupCode, snapshot.text);
      if (matchKey) this.deps.outputs?.(groupCode, matchKey);
      // What this node forwarded to the old owner that the match does not hold goes first (owner-delivery.ts).
      this.delivered(groupCode, true, lastForwarded(ownership.nodeId, snapshot.text, logged));
    } catch (err) {
      this.log.warn({ groupCode, error: (err as Error).message }, 'adoption attempt failed; retried');
    } finally {
      this.inFlight.delete(groupCode);
    }
  }

  /** The match runs again (here: `local`), so what was held for it goes there; `applied`: see OwnerDelivery.release. */
  private delivered(groupCode: string, local: boolean, applied?: number): void {
    this.heldSince.delete(groupCode);
    this.offeredAt.delete(groupCode);
    const { remote, routing } = this.deps;
    remote.release(groupCode, local ? (message) => routing.fromInbox(groupCode, message) : undefined, applied);
  }
}
