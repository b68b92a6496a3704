// The per-message path to the shards: observer payloads to their match's shard, auxiliary payloads
// to every shard holding a live match with the session's match id (with those matches' codes), and
// what the backend answered for a match to the shard that holds it. Direct calls: nothing here goes
// through an event or a promise. The other concerns' commands for a match's shard come this way too
// (the schedule's sides, the feeds' tables): no module outside matches/ sends to the shard pool.
import type { MainEventBus } from '../base/events.js';
import type { MatchDirectory } from './match-directory.js';
import type { InboxMessage, Via } from './owner-inbox.js';
import type { ScheduledTeam } from '../../protocol/shard-messages.js';
import type { ShardPool } from '../shards/pool.js';
import type { Seat } from '../sessions/index.js';
import type { LocalRoutes } from './local-routes.js';
import type { MatchInputs } from './match-inputs.js';
import type { ObserverClock } from './observer-clock.js';

/** Scale-out: where data for a match that another node runs goes (matches/owner-delivery.ts). */
export interface RemoteMatches {
  send(groupCode: string, message: InboxMessage): boolean;
  /** Whether a match run here must still take this path (messages sent before its adoption are unanswered: matches/owner-delivery.ts). */
  pending(groupCode: string): boolean;
}

/** A match's standby relay as routing uses it (standby/relay.ts is the one): routing knows no standby beyond this. */
export interface SeatRelay {
  /** Whether the match has a standby watched here, so the seat's payloads pass through the relay. */
  active(groupCode: string, seat: Seat): boolean;
  primaryOf(groupCode: string): Seat;
  receive(groupCode: string, seat: Seat, raw: string, now: number, via?: string): boolean;
}

export interface RoutingDeps {
  pool: ShardPool;
  /** The payloads' way to the shards: numbered and logged (match-inputs.ts). */
  inputs: MatchInputs;
  directory: MatchDirectory;
  routes: LocalRoutes;
  events: MainEventBus;
  /** Set with REDIS_URL: matches this process does not run are someone else's. */
  remote?: RemoteMatches;
  /** Matches with a standby observer: their observer payloads pass through it (standby/relay.ts). */
  relay?: SeatRelay;
  /** Where each match's primary observer's last message time is kept (the standby relay reads it too). */
  clock: ObserverClock;
}

export class MatchRouting {
  /** When each match's primary observer last sent data here (link health, the standby relay). */
  readonly clock: ObserverClock;

  constructor(private readonly deps: RoutingDeps) {
    this.clock = deps.clock;
    const { events } = deps;
    events.on('matchStopped', ({ groupCode }) => this.clock.forget(groupCode));
    events.on('matchRegistered', ({ groupCode, registered }) => this.toShard(groupCode, (shard) => deps.pool.send(shard, { t: 'registered', groupCode, registered })));
    events.on('playercams', ({ groupCode, result }) => this.toShard(groupCode, (shard) => deps.pool.send(shard, { t: 'playercams', groupCode, result, now: Date.now() })));
    events.on('mmr', ({ groupCode, result }) => this.toShard(groupCode, (shard) => deps.pool.send(shard, { t: 'mmr', groupCode, result, now: Date.now() })));
  }

  /** false: the payload cannot be forwarded (it contains a control character that is never valid JSON). */
  obs(groupCode: string, raw: string, seat: Seat = 'group'): boolean {
    const { remote, routes, directory } = this.deps;
    const local = routes.get(groupCode) !== undefined;
    // Another node's live match; a code nobody has goes to the shard, which drops and counts it as in one process.
    // A match adopted here a moment ago whose earlier messages are still on their way through the inbox: behind them.
    if (remote && (local ? remote.pending(groupCode) : directory.get(groupCode))) return remote.send(groupCode, seat === 'standby' ? { t: 'obs', raw, seat } : { t: 'obs', raw });
    return this.toMatch(groupCode, raw, seat, Date.now(), local);
  }

  /** An observer payload for a match this process runs (`local`) or nobody runs: through the standby relay when the match has one (`via`: the node that forwarded it). */
  private toMatch(groupCode: string, raw: string, seat: Seat, now: number, local: boolean, via?: Via): boolean {
    const relay = this.deps.relay;
    if (local && relay?.active(groupCode, seat)) {
      if (seat === relay.primaryOf(groupCode)) this.clock.seen(groupCode, now);
      return relay.receive(groupCode, seat, raw, now, via);
    }
    if (local) this.clock.seen(groupCode, now);
    return this.deps.inputs.obs(groupCode, raw, now, via);
  }

  /** Auxiliary data goes to every live match with the session's match id (once per shard, with their group codes); false when there is none. */
  aux(matchId: string, playerId: string, raw: string): boolean {
    const remote = this.deps.remote;
    const byShard = this.groupsByShard(matchId, remote && ((code) => remote.send(code, { t: 'aux', matchId, playerId, raw })));
    const now = Date.now();
    for (const [shard, codes] of byShard) this.deps.inputs.aux(shard, codes, matchId, playerId, raw, now);
    return byShard.size > 0 || (this.deps.remote !== undefined && (this.deps.directory.groupsForMatchId(matchId)?.size ?? 0) > 0);
  }

  auxDisconnected(matchId: string, playerId: string): void {
    const byShard = this.groupsByShard(matchId, (code) => this.deps.remote?.send(code, { t: 'aux_disconnected', matchId, playerId }));
    for (const [shard, groupCodes] of byShard) this.deps.pool.send(shard, { t: 'aux_disconnected', groupCodes, matchId, playerId, now: Date.now() });
  }

  /**
   * The schedule's keeper put the fixture's teams on the other sides (the roster showed them the
   * other way round): the match's shard gets the teams and the tools that follow the sides
   * (schedule/keeper.ts). false: this process does not run the match.
   */
  schedule(groupCode: string, teams: [ScheduledTeam, ScheduledTeam], tools: Record<string, unknown>): boolean {
    return this.toShard(groupCode, (shard) => this.deps.pool.send(shard, { t: 'schedule', groupCode, teams, tools, now: Date.now() }));
  }

  /**
   * Asks the match's shard for the feeds' tables of its latest frame; the answer comes in the
   * shard's output (feeds/shard-tables.ts `take`). false: this process does not run the match.
   */
  feedTables(groupCode: string): boolean {
    return this.toShard(groupCode, (shard) => this.deps.pool.send(shard, { t: 'feed_tables', groupCode }));
  }

  /**
   * Scale-out: a message from another node's ingestion for a match this process runs (its inbox,
   * matches/cluster.ts), applied as if it had arrived here.
   */
  fromInbox(groupCode: string, message: InboxMessage): void {
    const local = this.deps.routes.get(groupCode);
    if (!local) return;
    const now = Date.now();
    if (message.t === 'obs') this.toMatch(groupCode, message.raw, message.seat ?? 'group', now, true, message.via);
    else if (message.t === 'aux') this.deps.inputs.aux(local.shard, [groupCode], message.matchId, message.playerId, message.raw, now, message.via);
    else this.deps.pool.send(local.shard, { t: 'aux_disconnected', groupCodes: [groupCode], matchId: message.matchId, playerId: message.playerId, now });
  }

  /**
   * The live matches with this match id that this process runs, by shard (the directory is the one
   * match-id index: shards keep none); the others (run by another node) go to `elsewhere`.
   */
  private groupsByShard(matchId: string, elsewhere?: (groupCode: string) => void): Map<number, string[]> {
    const byShard = new Map<number, string[]>();
    for (const code of this.deps.directory.groupsForMatchId(matchId) ?? []) {
      const shard = this.deps.routes.get(code)?.shard;
      if (shard === undefined) { elsewhere?.(code); continue; }
      const codes = byShard.get(shard);
      if (codes) codes.push(code); else byShard.set(shard, [code]);
    }
    return byShard;
  }

  /** A command for the shard that holds `groupCode`, if this process still runs the match (false: it does not). */
  private toShard(groupCode: string, send: (shard: number) => void): boolean {
    const match = this.deps.routes.get(groupCode);
    if (match) send(match.shard);
    return match !== undefined;
  }
}
