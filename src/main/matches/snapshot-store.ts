// SnapshotStore: the latest snapshot of each live match (Match.toSnapshot(): the engine core as
// JSON, timers included, without the player-camera secret), with the directory record it belongs
// to, so that a match can be rebuilt from it alone: after a shard thread died (this process), after
// a restart (STATE_DIR), or by another process when its owner is gone (shared adapter).
//
// Fenced: each snapshot carries its owner's epoch (MatchDirectory), and a store never replaces a
// snapshot with one of a lower epoch, nor deletes one of a higher epoch (Redis: a script comparing
// the epochs), so a stale owner cannot overwrite its successor's state.
//
// `put` runs every SNAPSHOT_INTERVAL_MS per changed match; `latest` is synchronous because a shard
// restart rebuilds its matches in the same turn (the retained batches follow at once): it answers
// from what this process put or loaded. Adapters: matches/adapters/memory/snapshot-store.ts,
// matches/adapters/state-dir/snapshot-store.ts (STATE_DIR: one file per match). Contract:
// test/main/matches/snapshot-store.contract.ts.
import type { CreateMatchCmd } from '../../protocol/shard-messages.js';
import type { DirectoryRecord } from './match-directory.js';

/** The directory record as a snapshot keeps it (the roster is reported again by the restored shard). */
export type SnapshotMatch = Omit<DirectoryRecord, 'playerIds' | 'epoch'>;

/**
 * What a match was created from: its logon as the shard's `create` command had it (no key, no
 * secret) and that command's time, which is the match's instance (its events' matchKey): a match
 * created again from it goes on under the same matchKey.
 */
export interface MatchCreation {
  readonly now: number;
  readonly logon: CreateMatchCmd['logon'];
}

export interface MatchSnapshot {
  readonly groupCode: string;
  /** The owner's epoch when the snapshot was taken. */
  readonly epoch: number;
  /** The shard's snapshot text. */
  readonly text: string;
  readonly match: SnapshotMatch;
  readonly savedAt: number;
  /** Set when the match has no snapshot yet, only its creation (`text` is ''): it is created again from this. */
  readonly created?: MatchCreation;
}

export interface SnapshotStore {
  /**
   * Whether snapshots outlive this process (STATE_DIR, a shared store). At shutdown, matches are
   * then kept for the next start (or another process) instead of being ended.
   */
  readonly durable: boolean;
  /**
   * Keeps the snapshot as its match's latest; false (nothing changes) when the store holds one of a
   * higher epoch. `after`: a shared store writes it only once that resolves (the match's events are
   * in the shared outbox: events/outbox-share.ts), and only if no newer one came meanwhile;
   * `latest` has it at once. A store only this process reads ignores it.
   */
  put(snapshot: MatchSnapshot, after?: Promise<void>): Promise<boolean>;
  /**
   * A match was just created by an observer logon: kept before the logon is answered, so that a
   * restart (or, shared, another node's takeover) before its first snapshot creates it again from
   * this, and its input log gives it what it was given since (STATE_DIR: a synchronous write; Redis:
   * awaited; `loadAll` and `load` return it, with `created` and `text` '', until a snapshot of the same
   * match replaces it; never `latest`: a shard restart cannot rebuild from it). A failed write is
   * logged, not thrown: the match goes on, unprotected until its first snapshot. Left out by stores
   * whose snapshots do not outlive the process.
   */
  keepCreated?(match: SnapshotMatch, epoch: number, created: MatchCreation): void | Promise<void>;
  /** The latest snapshot of a match that this process put or loaded, or undefined. */
  latest(groupCode: string): MatchSnapshot | undefined;
  /** Every snapshot in the store (at start: the matches to resume). */
  loadAll(): Promise<MatchSnapshot[]>;
  /** The match is gone: its snapshot is deleted, unless the store holds one of a higher epoch. */
  delete(groupCode: string, epoch: number): Promise<void>;
  /** Resolves once every write so far is stored. */
  flush(): Promise<void>;
  /** Stops the adapter's own timers and subscriptions, if any (shutdown: after `flush`). */
  close(): void;
}
