// The main thread's side of the matches: creates them on a shard, routes payloads, publishes the
// frames the shards produce, and turns shard events into backend calls, team info and socket
// closes. It never holds match state beyond the registry and each match's latest frame.
import type { RestoreMatchCmd, ShardCmd, ShardEvent, ShardOut, ShardStats } from '../../protocol/shard-messages.js';
import type { Config } from '../config.js';
import { FORCE_END_TIMEOUT_MS } from '../limits.js';
import type { Logger } from '../log.js';
import { MatchSync } from '../backend/match-sync.js';
import { ShardPool, type RecoveryMode } from '../shards/pool.js';
import type { PersistedMatch, StateDir } from '../state/state-dir.js';
import type { TeamInfoStore } from '../stores/team-info.js';
import { SERVICE_VERSION } from '../version.js';
import { generateSecret, secretDigest } from './credentials.js';
import { MatchRegistry, type LiveMatch } from './registry.js';
import type { ObsLogonPacket } from '../../schemas/logon.js';
import { FramePacket } from '../broadcast/frame.js';

export interface HubDeps {
  config: Config;
  log: Logger;
  teamInfo: TeamInfoStore;
  publish(packet: FramePacket): void;
  /** A match is gone (ended, inactive, removed, shard lost): close its ingestion sockets. */
  onMatchRemoved(groupCode: string, matchId: string): void;
  /** STATE_DIR: snapshots are written there as they come (docs/reliability.md). */
  stateDir?: StateDir;
}

export interface HubCounters {
  framesPublished: number;
  /** WebSocket message bytes of the published frames (each frame once, before fan-out). */
  bytesPublished: number;
  dropped: Record<string, number>;
}

export class MatchHub {
  readonly registry = new MatchRegistry();
  readonly pool: ShardPool;
  readonly counters: HubCounters = { framesPublished: 0, bytesPublished: 0, dropped: {} };
  private readonly sync: MatchSync;
  private readonly log: Logger;
  private readonly shardDrops: Record<string, number>[] = [];
  /** Force-ends waiting for their match's removal, by group code. */
  private readonly removalWaiters = new Map<string, Array<(removed: boolean) => void>>();
  /** The latest snapshot of each live match and its player-camera secret (memory only): crash recovery, STATE_DIR. */
  private readonly snapshots = new Map<string, { text: string; camSecret: string }>();
  /** The latest stats of each shard, and a listener (metrics). */
  readonly shardStats: (ShardStats | undefined)[] = [];
  onStats?: (shard: number, stats: ShardStats) => void;
  /** Shard crashes and the matches they cost (metrics, reliability tests). */
  readonly crashCounters = { crashes: 0, restored: 0, lost: 0 };

  constructor(private readonly deps: HubDeps) {
    this.log = deps.log.child({ module: 'matches' });
    const c = deps.config;
    this.sync = new MatchSync({
      config: c,
      log: deps.log,
      isSupporter: (code) => this.registry.get(code)?.isSupporter ?? false,
      onRegistered: (code, ok) => {
        const match = this.registry.get(code);
        if (match) this.pool.send(match.shard, { t: 'registered', groupCode: code, registered: ok });
      },
      onPlayercams: (code, result) => {
        const match = this.registry.get(code);
        if (match) this.pool.send(match.shard, { t: 'playercams', groupCode: code, result, now: Date.now() });
      },
      onMmr: (code, result) => {
        const match = this.registry.get(code);
        if (match) this.pool.send(match.shard, { t: 'mmr', groupCode: code, result, now: Date.now() });
      },
    });
    this.pool = new ShardPool({
      count: c.SHARD_WORKERS,
      batchMs: c.SHARD_BATCH_MS,
      log: deps.log,
      settings: {
        intervalMs: c.BROADCAST_INTERVAL_MS,
        inactivityMs: c.INACTIVITY_TIMEOUT_MS,
        trustReplayTimestamps: c.TRUST_REPLAY_TIMESTAMPS,
        sponsorLogoUrl: c.SPONSOR_LOGO_URL,
        recordReplays: c.RECORD_REPLAYS,
        replayDir: c.REPLAY_DIR,
        serviceVersion: SERVICE_VERSION,
        compression: c.COMPRESSION,
        frameSerializer: c.FRAME_SERIALIZER,
        snapshotIntervalMs: c.SNAPSHOT_INTERVAL_MS,
        faultInjection: c.FAULT_INJECTION,
      },
      onOutput: (shard, out) => this.onShardOutput(shard, out),
      onCrash: (shard, mode) => this.onShardCrash(shard, mode),
    });
  }

  /**
   * Whether one more match may start (MAX_LIVE_MATCHES, MAX_MATCHES_PER_KEY): null, or the ack
   * reason of the refusal. `keyId` identifies the access key (or its organisation), never the key.
   */
  admission(keyId: string): string | null {
    const c = this.deps.config;
    if (this.registry.count() >= c.MAX_LIVE_MATCHES) return `Server is at capacity (${c.MAX_LIVE_MATCHES} live matches). Try again later.`;
    let own = 0;
    for (const m of this.registry.all()) if (m.keyId === keyId) own++;
    if (own >= c.MAX_MATCHES_PER_KEY) return `Too many live matches for this key (${c.MAX_MATCHES_PER_KEY}). End a match first.`;
    return null;
  }

  /** Creates a live match for a logon; returns its group secret (given once, kept only hashed). */
  create(packet: ObsLogonPacket, validity: { organizationId?: string; isSupporter?: boolean }, keyId = ''): string {
    const c = this.deps.config;
    const secret = generateSecret(c.GROUP_SECRET_LENGTH);
    const shard = this.pool.shardOf(packet.groupCode);
    // Set by the backend or a KEYS_FILE entry; the local AUTH_KEY has no organisation.
    const organizationId = validity.organizationId ?? '';
    const isSupporter = validity.isSupporter === true;
    const match: LiveMatch = {
      groupCode: packet.groupCode, shard, secretDigest: secretDigest(secret), matchId: '', organizationId, isSupporter,
      createdAt: Date.now(), teams: { leftTeam: packet.leftTeam, rightTeam: packet.rightTeam }, keyId,
    };
    this.registry.add(match);
    const team = (t: ObsLogonPacket['leftTeam']) => ({ name: t.name, tricode: t.tricode, url: t.url, attackStart: t.attackStart === true });
    this.pool.send(shard, {
      t: 'create',
      groupCode: packet.groupCode,
      now: Date.now(),
      logon: {
        groupCode: packet.groupCode,
        leftTeam: team(packet.leftTeam),
        rightTeam: team(packet.rightTeam),
        toolsData: packet.toolsData,
        organizationId,
        isSupporter,
        obsName: typeof packet.obsName === 'string' ? packet.obsName : '',
        clientVersion: typeof packet.clientVersion === 'string' ? packet.clientVersion : '',
      },
    });
    this.deps.teamInfo.set(packet.groupCode, match.teams);
    this.log.info({ groupCode: packet.groupCode, shard, organizationId, isSupporter }, 'match created');
    return secret;
  }

  /** false: the payload cannot be forwarded (it contains a control character that is never valid JSON). */
  obs(groupCode: string, raw: string): boolean {
    return this.pool.obs(groupCode, raw, Date.now());
  }

  /** Auxiliary data goes to every live match with the session's match id (once per shard, with their group codes); false when there is none. */
  aux(matchId: string, playerId: string, raw: string): boolean {
    const byShard = this.groupsByShard(matchId);
    const now = Date.now();
    for (const [shard, codes] of byShard) this.pool.aux(shard, codes, matchId, playerId, raw, now);
    return byShard.size > 0;
  }

  auxDisconnected(matchId: string, playerId: string): void {
    for (const [shard, groupCodes] of this.groupsByShard(matchId)) this.pool.send(shard, { t: 'aux_disconnected', groupCodes, matchId, playerId, now: Date.now() });
  }

  /** The live matches with this match id, by shard (the registry is the one match-id index: shards keep none). */
  private groupsByShard(matchId: string): Map<number, string[]> {
    const byShard = new Map<number, string[]>();
    for (const code of this.registry.groupsForMatchId(matchId) ?? []) {
      const shard = this.registry.get(code)!.shard;
      byShard.set(shard, [...(byShard.get(shard) ?? []), code]);
    }
    return byShard;
  }

  private onShardOutput(shard: number, out: ShardOut): void {
    for (let i = 0; i < out.codes.length; i++) {
      const packet = new FramePacket(out.codes[i], out.frameNos[i], out.wires[i], out.deltas[i]);
      this.registry.setLatestFrame(packet);
      this.deps.publish(packet);
      this.counters.bytesPublished += packet.wireText.length;
    }
    this.counters.framesPublished += out.codes.length;
    if (out.summaries) for (const summary of out.summaries) this.registry.setSummary(summary);
    if (out.snapshots) this.onSnapshots(out.snapshots);
    for (const event of out.events) this.onEvent(event);
    if (out.stats) {
      this.shardStats[shard] = out.stats;
      this.onStats?.(shard, out.stats);
      this.shardDrops[shard] = out.stats.dropped;
      const total: Record<string, number> = {};
      for (const drops of this.shardDrops) for (const [k, v] of Object.entries(drops ?? {})) total[k] = (total[k] ?? 0) + v;
      this.counters.dropped = total;
    }
  }

  private onEvent(event: ShardEvent): void {
    switch (event.t) {
      case 'match_id':
        this.registry.setMatchId(event.groupCode, event.matchId);
        return;
      case 'removed': {
        const match = this.registry.remove(event.groupCode);
        if (!match) return; // already gone (a removal re-applied after a shard restart)
        this.snapshots.delete(event.groupCode);
        this.deps.stateDir?.deleteMatch(event.groupCode);
        this.log.info({ groupCode: event.groupCode, reason: event.reason }, 'match removed');
        this.deps.onMatchRemoved(event.groupCode, match?.matchId ?? '');
        this.resolveRemoval(event.groupCode, true);
        return;
      }
      case 'team_info_final': {
        const teams = this.registry.get(event.groupCode)?.teams;
        this.deps.teamInfo.setFinal(event.groupCode, { ...event.info, ...teams });
        return;
      }
      case 'roster':
        this.registry.setRoster(event.groupCode, event.playerIds);
        return;
      case 'effect':
        this.sync.run(event.effect);
        return;
      case 'drop':
        this.log.info({ groupCode: event.groupCode, reason: event.reason, type: event.type, detail: event.detail }, 'message dropped');
        return;
      case 'log':
        this.log[event.level]({ ...event.fields }, event.msg);
        return;
    }
  }

  /** The snapshots a shard took (every SNAPSHOT_INTERVAL_MS, of the matches that changed). */
  private onSnapshots(snaps: NonNullable<ShardOut['snapshots']>): void {
    const now = Date.now();
    for (let i = 0; i < snaps.codes.length; i++) {
      const code = snaps.codes[i];
      const match = this.registry.get(code);
      if (!match) continue;
      this.snapshots.set(code, { text: snaps.texts[i], camSecret: snaps.camSecrets[i] });
      this.deps.stateDir?.writeMatch(this.persisted(match, snaps.texts[i], now));
    }
  }

  private persisted(m: LiveMatch, snapshot: string, now: number): PersistedMatch {
    return {
      v: 1, groupCode: m.groupCode, secretHash: m.secretDigest, matchId: m.matchId, organizationId: m.organizationId,
      isSupporter: m.isSupporter, keyId: m.keyId ?? '', createdAt: m.createdAt, teams: m.teams, snapshot, savedAt: now,
    };
  }

  private restoreCmd(code: string, text: string, camSecret: string): RestoreMatchCmd {
    return { t: 'restore', groupCode: code, snapshot: text, playercamSecret: camSecret, frameNoBase: (this.registry.latestFrame(code)?.frameNo ?? 0) + 1 };
  }

  /**
   * A shard thread died. Its matches are rebuilt in the new thread from their latest snapshots, and
   * (mode 'full') the pool applies the batches since then again, so nothing is lost. Matches without
   * a snapshot are rebuilt by their `create` in those batches ('full') or lost.
   */
  private onShardCrash(shard: number, mode: RecoveryMode): ShardCmd[] {
    this.crashCounters.crashes++;
    const owned = [...this.registry.all()].filter((m) => m.shard === shard);
    const cmds: ShardCmd[] = [];
    const lost: string[] = [];
    for (const m of owned) {
      const snap = mode === 'none' ? undefined : this.snapshots.get(m.groupCode);
      if (snap) cmds.push(this.restoreCmd(m.groupCode, snap.text, snap.camSecret));
      else if (mode !== 'full') lost.push(m.groupCode);
    }
    this.crashCounters.restored += owned.length - lost.length;
    this.crashCounters.lost += lost.length;
    this.log.error({ shard, mode, groupCodes: owned.map((m) => m.groupCode), restored: owned.length - lost.length, lost }, 'shard crashed; its matches are rebuilt from their snapshots');
    for (const code of lost) {
      const match = this.registry.remove(code);
      this.snapshots.delete(code);
      this.deps.stateDir?.deleteMatch(code);
      this.deps.onMatchRemoved(code, match?.matchId ?? '');
      this.resolveRemoval(code, true);
    }
    return cmds;
  }

  /**
   * At start with STATE_DIR: the persisted matches become live again (same group code, secret and
   * state), on the shard their code maps to now. Returns how many were restored.
   */
  restore(records: PersistedMatch[]): number {
    let n = 0;
    for (const r of records) {
      if (this.registry.get(r.groupCode)) continue;
      const shard = this.pool.shardOf(r.groupCode);
      const match: LiveMatch = {
        groupCode: r.groupCode, shard, secretDigest: r.secretHash, matchId: '', organizationId: r.organizationId,
        isSupporter: r.isSupporter, createdAt: r.createdAt, teams: r.teams, keyId: r.keyId,
      };
      this.registry.add(match);
      if (r.matchId) this.registry.setMatchId(r.groupCode, r.matchId);
      this.snapshots.set(r.groupCode, { text: r.snapshot, camSecret: '' });
      this.deps.teamInfo.set(r.groupCode, r.teams);
      this.pool.send(shard, this.restoreCmd(r.groupCode, r.snapshot, ''));
      n++;
    }
    if (n > 0) this.log.info({ matches: n, groupCodes: records.map((r) => r.groupCode) }, 'matches restored from STATE_DIR');
    return n;
  }

  /**
   * Shutdown, after ingestion stopped: every shard sends its pending frames and a snapshot of every
   * match. With STATE_DIR the matches are written there (they will be resumed, so not completed);
   * without it every match ends (a last frame with isRunning false) and is removed, registered ones
   * completed with the backend (bounded by `deadline`).
   */
  async shutdown(deadline: number): Promise<void> {
    const persist = this.deps.stateDir !== undefined;
    await this.pool.drain(!persist, Math.max(100, deadline - Date.now()));
    if (persist) {
      const now = Date.now();
      for (const m of this.registry.all()) {
        const snap = this.snapshots.get(m.groupCode);
        if (snap) this.deps.stateDir!.writeMatch(this.persisted(m, snap.text, now));
      }
      await this.deps.stateDir!.flush();
    } else {
      await this.sync.drain(Math.max(0, deadline - Date.now()));
    }
  }

  /**
   * Operator force-end: the shard sends a final frame, completes the match with the backend when it
   * is registered and removes it; the removal closes its ingestion sockets (onMatchRemoved).
   * Resolves true once the match is gone, false when it is unknown or the shard did not confirm in time.
   */
  forceEnd(groupCode: string): Promise<boolean> {
    const match = this.registry.get(groupCode);
    if (!match) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(false), FORCE_END_TIMEOUT_MS);
      const finish = (removed: boolean) => {
        clearTimeout(timer);
        const list = this.removalWaiters.get(groupCode);
        const i = list?.indexOf(finish) ?? -1;
        if (list && i >= 0) list.splice(i, 1);
        if (list && list.length === 0) this.removalWaiters.delete(groupCode);
        resolve(removed);
      };
      const list = this.removalWaiters.get(groupCode) ?? [];
      list.push(finish);
      this.removalWaiters.set(groupCode, list);
      this.pool.send(match.shard, { t: 'remove', groupCode });
    });
  }

  /** A new group secret for a live match (returned once, kept hashed); the old one stops working at once. */
  rotateSecret(groupCode: string): string | undefined {
    const match = this.registry.get(groupCode);
    if (!match) return undefined;
    const secret = generateSecret(this.deps.config.GROUP_SECRET_LENGTH);
    match.secretDigest = secretDigest(secret);
    return secret;
  }

  private resolveRemoval(groupCode: string, removed: boolean): void {
    const list = this.removalWaiters.get(groupCode);
    if (!list) return;
    for (const finish of [...list]) finish(removed);
  }

  async close(): Promise<void> {
    this.sync.close();
    await this.pool.terminate();
  }
}
