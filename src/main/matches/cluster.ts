// Scale-out runtime (REDIS_URL set): what a node does beyond its ports. The inbox of every match
// this node runs is listened to (data that reached other nodes), matches whose node is gone are
// taken over (takeover.ts), and Redis's reachability is reported (`redisUp`: /status,
// metrics, and logons that need Redis are refused while it is unreachable).
import type { MainEventBus } from '../base/events.js';
import type { Logger } from '../base/log.js';
import type { MatchRouting } from './routing.js';
import type { MatchLifecycle } from './lifecycle.js';
import type { LocalRoutes } from './local-routes.js';
import type { FrameBus } from '../frames/index.js';
import type { MatchDirectory } from './match-directory.js';
import type { MatchOwnership } from './match-ownership.js';
import type { OwnerInbox } from './owner-inbox.js';
import type { OwnerDelivery } from './owner-delivery.js';
import { MatchTakeover, type TakeoverDeps } from './takeover.js';

/** What the node's runtime uses of the ports on Redis (redis-ports.ts builds them). */
export interface ClusterPorts {
  conn: { readonly nodeId: string; readonly up: boolean };
  /** At a graceful stop every lease goes at once (the Redis adapter's relinquishAll). */
  ownership: MatchOwnership & { relinquishAll(): Promise<number> };
  inbox: OwnerInbox;
  shared: { directory: MatchDirectory; snapshots: TakeoverDeps['snapshots']; frames: FrameBus };
  /** The Redis frame bus's counters (bytesPublished among them). */
  frameStats: { bytesPublished: number };
}

export interface ClusterDeps {
  log: Logger;
  events: MainEventBus;
  redis: ClusterPorts;
  lifecycle: MatchLifecycle;
  routing: MatchRouting;
  routes: LocalRoutes;
  remote: OwnerDelivery;
  leaseTtlMs: number;
  /** An adopted match's outputs taken over in the same step, or an orphan's outputs alone (`epoch`: its outputs lease's; takeover.ts). */
  outputs?: (groupCode: string, matchKey: string, epoch?: number) => void;
}

export class Cluster {
  readonly takeover: MatchTakeover;
  readonly nodeId: string;
  private readonly listening = new Map<string, () => void>();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: ClusterDeps) {
    const { redis, events } = deps;
    this.nodeId = redis.conn.nodeId;
    this.takeover = new MatchTakeover({
      log: deps.log, ownership: redis.ownership, directory: redis.shared.directory, snapshots: redis.shared.snapshots,
      lifecycle: deps.lifecycle, routing: deps.routing, routes: deps.routes, remote: deps.remote, events, leaseTtlMs: deps.leaseTtlMs,
      ...(deps.outputs ? { outputs: deps.outputs } : {}),
    });
    this.unsubscribe.push(
      events.on('matchRunning', ({ groupCode }) => {
        if (this.listening.has(groupCode)) return;
        this.listening.set(groupCode, redis.inbox.listen(groupCode, (message) => deps.routing.fromInbox(groupCode, message)));
      }),
      events.on('matchStopped', ({ groupCode }) => {
        this.listening.get(groupCode)?.();
        this.listening.delete(groupCode);
      }),
    );
  }

  /** Live matches this node runs. */
  localMatches(): number {
    let n = 0;
    for (const _ of this.deps.routes.all()) n++;
    return n;
  }

  /** Ingestion data forwarded to other nodes (matches/owner-delivery.ts). */
  get deliveryStats(): OwnerDelivery['stats'] {
    return this.deps.remote.stats;
  }

  /** The frame bus's frame counters through Redis, by name (bytes apart: frameBytesPublished). */
  frameStats(): Record<string, number> {
    const { bytesPublished: _bytes, ...frames } = this.deps.redis.frameStats;
    return frames as unknown as Record<string, number>;
  }

  /** Bytes this node published through Redis for frames (its matches' deltas and keyframes). */
  frameBytesPublished(): number {
    return this.deps.redis.frameStats.bytesPublished;
  }

  /** Whether Redis is reachable (both connections up, pub/sub probe answered). */
  get redisUp(): boolean {
    return this.deps.redis.conn.up;
  }

  start(): void {
    this.takeover.start();
  }

  /**
   * Graceful shutdown, before the shards drain: inboxes are no longer listened to (nor keyframe
   * requests answered), so what other nodes forward from now on is held there
   * (owner-delivery.ts) until a node adopts the match.
   */
  stopInboxes(): void {
    for (const [groupCode, stop] of this.listening) {
      stop();
      // The frame bus listens on the same owner channel (keyframe requests): a node that still
      // counted as a receiver there would swallow what others forward.
      this.deps.redis.shared.frames.disown(groupCode);
    }
    this.listening.clear();
  }

  /** Graceful shutdown, once the last snapshots are stored: the leases go, so other nodes adopt the matches at once. */
  async handOver(): Promise<number> {
    this.takeover.close();
    return this.deps.redis.ownership.relinquishAll();
  }

  /** Stops the runtime (takeover, inbox listeners); the ports are the composition root's to close. */
  close(): void {
    this.takeover.close();
    for (const u of this.unsubscribe) u();
    for (const stop of this.listening.values()) stop();
    this.listening.clear();
  }
}
