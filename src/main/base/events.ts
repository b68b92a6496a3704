// The main thread's components talk to each other through these events (and through the ports,
// which are what a second process would share). Every event is listed here, with who emits it and
// who listens. Delivery is synchronous, in subscription order: an event is a function call.
//
// Nothing per frame or per message goes through here: frames travel on the FrameBus, payloads
// are forwarded by direct calls. These events happen a few times a second at most.
//
// The events' own vocabulary (RecoveryMode, OutboundOutcome) is declared here, below the emitters
// (shards/pool.ts, backend/http.ts) that use it too: this bus imports nothing above it.
import type { ShardStats } from '../../protocol/shard-messages.js';

/** What a restarted shard can be given: snapshots and the retained batches, snapshots only, nothing (shards/retained-log.ts). */
export type RecoveryMode = 'full' | 'snapshots' | 'none';

/** Outcome of one outbound call (backend/http.ts): its status class, or why there was no answer. */
export type OutboundOutcome = '2xx' | '3xx' | '4xx' | '5xx' | 'timeout' | 'network' | 'too-large';

export interface MainEvents {
  /** A shard's stats, once a second per shard. From matches/shard-output.ts; to shards/totals.ts, metrics/metrics.ts. */
  shardStats: { shard: number; stats: ShardStats };
  /**
   * A shard thread died and a new one took its place: its counters start again from zero, its
   * matches were rebuilt or lost. From matches/shard-recovery.ts; to shards/totals.ts.
   */
  shardRestarted: { shard: number; mode: RecoveryMode; restored: number; lost: number };
  /**
   * A match is gone from its shard: the shard removed it (ended, inactive, force-ended, shutdown),
   * or it was lost with its shard. From matches/shard-output.ts, matches/shard-recovery.ts; to
   * matches/lifecycle.ts, which removes it everywhere (one path).
   */
  matchGone: { groupCode: string; reason: string };
  /** The backend answered a match's registration. From matches/match-sync.ts; to matches/routing.ts (the shard's `registered`). */
  matchRegistered: { groupCode: string; registered: boolean };
  /** Player cameras fetched for a match. From matches/match-sync.ts; to matches/routing.ts (the shard's `playercams`). */
  playercams: { groupCode: string; result: unknown };
  /** Players' MMR fetched for a match. From matches/match-sync.ts; to matches/routing.ts (the shard's `mmr`). */
  mmr: { groupCode: string; result: unknown };
  /**
   * This process runs a match now (created, resumed, restored, adopted from another node) or no
   * longer does (removed, or evicted: another node owns it). From matches/lifecycle.ts; to
   * matches/cluster.ts (scale-out: the match's inbox is listened to while it runs here) and
   * rehearsal/rehearsals.ts (a rehearsal ends with its match).
   */
  matchRunning: { groupCode: string; epoch: number };
  /** `finalFrameText`: the removed match's last frame text, when this process had it (feeds/standing.ts keeps its tables). */
  matchStopped: { groupCode: string; finalFrameText?: string };
  /** Scale-out: ingestion data for a match reached no node (its owner is gone). From matches/owner-delivery.ts; to matches/takeover.ts. */
  matchOwnerMissing: { groupCode: string };
  /**
   * A match ended with game_end: its map and each side's rounds (left, right; the shard's
   * `map_result`); and a match's roster grew: each side's players as `name#tag` (the shard's
   * `roster`). From matches/shard-output.ts; to schedule/keeper.ts (the series).
   */
  mapFinished: { groupCode: string; map: string; scores: [number, number] };
  rosterSeen: { groupCode: string; sides: [string[], string[]] };
  /** The standby observer became the primary of a match (or back). From standby/relay.ts; to events/operational.ts. */
  observerFailover: { groupCode: string; cause: string; from: string; to: string; at: number };
  /** An outbound HTTP call ended. From backend/http.ts (OutboundHttp); to metrics/metrics.ts. */
  outboundCall: { label: string; seconds: number; outcome: OutboundOutcome };
}

type Listener<T> = (event: T) => void;

/** A typed, synchronous event emitter: emit calls each listener of the event in subscription order. */
export class EventBus<E> {
  private readonly listeners = new Map<keyof E, readonly Listener<never>[]>();

  on<K extends keyof E>(name: K, listener: Listener<E[K]>): () => void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener as Listener<never>]);
    return () => this.listeners.set(name, (this.listeners.get(name) ?? []).filter((l) => l !== listener));
  }

  emit<K extends keyof E>(name: K, event: E[K]): void {
    const list = this.listeners.get(name) as readonly Listener<E[K]>[] | undefined;
    if (list) for (const listener of list) listener(event);
  }
}

export type MainEventBus = EventBus<MainEvents>;
