// A match's life on its owning process: created from an observer logon (a claim in the directory,
// then its shard), resumed from its snapshot at start (STATE_DIR), force-ended or given a new secret
// by an operator, removed when it is gone (one path for every cause), and at shutdown either kept
// (durable snapshots) or ended. Control actions travel on the ControlBus, so that each has one path
// whichever process receives the request.
import type { ObsLogonPacket } from '../../schemas/logon.js';
import type { CreateMatchCmd } from '../../protocol/shard-messages.js';
import type { MatchSync } from './match-sync.js';
import type { Config } from '../base/config.js';
import type { MainEventBus } from '../base/events.js';
import { FORCE_END_TIMEOUT_MS, SHARD_DRAIN_MIN_MS } from '../base/limits.js';
import type { Logger } from '../base/log.js';
import type { ControlBus, ControlMessage } from '../control/index.js';
import type { FrameBus } from '../frames/index.js';
import type { MatchDirectory, DirectoryRecord } from './match-directory.js';
import { generateSecret, secretDigest, type SessionStore, withoutCamSecret } from '../sessions/index.js';
import type { MatchSnapshot, SnapshotStore } from './snapshot-store.js';
import type { TeamInfoStore } from '../previews/index.js';
import type { ShardPool } from '../shards/pool.js';
import type { LocalRoutes } from './local-routes.js';
import { restoreCommand } from './restore-command.js';
import { snapshotMeta } from '../shards/snapshot-meta.js';
import type { LoggedInput } from './input-log.js';
import type { MatchInputs } from './match-inputs.js';
import { endSessionsOfLostMatches, type JournalledMatches } from './lost-matches.js';
import { isRehearsal, REHEARSAL_KEY_PREFIX } from './rehearsal-marker.js';

export interface LifecycleDeps {
  config: Config;
  log: Logger;
  pool: ShardPool;
  routes: LocalRoutes;
  directory: MatchDirectory;
  snapshots: SnapshotStore;
  frames: FrameBus;
  teamInfo: TeamInfoStore;
  sessions: SessionStore;
  control: ControlBus;
  events: MainEventBus;
  sync: MatchSync;
  /** The input log's side of a rebuilt match (its inputs after the snapshot again) and of a removed one. */
  inputs: MatchInputs;
}

/** What an observer logon for a group code leads to. */
export type Opening =
  /** A new match: its group secret, given to the client once (kept only as a digest). */
  | { kind: 'created'; secret: string }
  /** The code is live: the logon must present its secret. */
  | { kind: 'live'; match: DirectoryRecord }
  /** A limit is reached: the ack's reason. */
  | { kind: 'refused'; reason: string };

export class MatchLifecycle {
  private readonly log: Logger;
  /** Force-ends waiting for their match's removal, by group code. */
  private readonly removalWaiters = new Map<string, Array<(removed: boolean) => void>>();
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: LifecycleDeps) {
    this.log = deps.log.child({ module: 'matches' });
    this.unsubscribe = deps.control.subscribe((message) => this.onControl(message));
    deps.events.on('matchGone', ({ groupCode, reason }) => this.remove(groupCode, reason));
  }

  /**
   * An observer logon for `packet.groupCode` with a valid key: a new match when the code is free
   * and the limits allow it (MAX_LIVE_MATCHES, MAX_MATCHES_PER_KEY), checked and claimed in one step.
   */
  async open(packet: ObsLogonPacket, validity: { organizationId?: string; isSupporter?: boolean }, keyId: string): Promise<Opening> {
    // Set by the backend or a KEYS_FILE entry; the local AUTH_KEY has no organisation.
    const organizationId = validity.organizationId ?? '';
    const isSupporter = validity.isSupporter === true;
    const opening = await this.claimAndCreate(packet, organizationId, isSupporter, keyId);
    if (opening.kind !== 'live' || !isRehearsal(opening.match)) return opening;
    // A real observer's logon ends a rehearsal of its code at once (README, "Rehearsals"): the
    // rehearsal takes the one removal path (on whichever node runs it), then the live match starts clean.
    this.log.info({ groupCode: packet.groupCode }, 'observer logon ends the rehearsal of its group code');
    await this.forceEnd(packet.groupCode);
    return this.claimAndCreate(packet, organizationId, isSupporter, keyId);
  }

  /**
   * A rehearsal (src/main/rehearsal): a match like a logon's, under a key id that marks it
   * (`rehearsal:<admin token id>`), counted against MAX_LIVE_MATCHES and MAX_MATCHES_PER_KEY; its
   * secret is never given to anyone, so no observer can reconnect to it.
   */
  openRehearsal(packet: ObsLogonPacket, tokenId: string): Promise<Opening> {
    return this.claimAndCreate(packet, '', false, `${REHEARSAL_KEY_PREFIX}${tokenId}`);
  }

  private async claimAndCreate(packet: ObsLogonPacket, organizationId: string, isSupporter: boolean, keyId: string): Promise<Opening> {
    const c = this.deps.config;
    const secret = generateSecret(c.GROUP_SECRET_LENGTH);
    const claim = await this.deps.directory.claim({
      groupCode: packet.groupCode, secretDigest: secretDigest(secret), organizationId, isSupporter, keyId,
      createdAt: Date.now(), teams: { leftTeam: packet.leftTeam, rightTeam: packet.rightTeam },
    }, { limits: { maxLive: c.MAX_LIVE_MATCHES, maxPerKey: c.MAX_MATCHES_PER_KEY } });
    if (!claim.ok) {
      if (claim.reason === 'taken') return { kind: 'live', match: claim.record };
      return {
        kind: 'refused',
        reason: claim.reason === 'capacity'
          ? `Server is at capacity (${c.MAX_LIVE_MATCHES} live matches). Try again later.`
          : `Too many live matches for this key (${c.MAX_MATCHES_PER_KEY}). End a match first.`,
      };
    }
    const { record } = claim;
    const shard = this.run(record);
    const team = (t: ObsLogonPacket['leftTeam']) => ({ name: t.name, tricode: t.tricode, url: t.url, attackStart: t.attackStart === true });
    const create: CreateMatchCmd = {
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
    };
    // Durable before the logon is answered (STATE_DIR: a synchronous write): a restart before the
    // match's first snapshot creates it again from this (docs/reliability.md, "Losses found").
    await this.deps.snapshots.keepCreated?.(record, record.epoch, { now: create.now, logon: { ...create.logon, toolsData: withoutCamSecret(create.logon.toolsData) } });
    this.deps.pool.send(shard, create);
    // Stored before the logon is answered: a graphics system that asks any node for the code's teams
    // right after the observer connected gets them (cluster.test.ts, on a loaded machine, did not).
    await this.setTeams(record);
    this.log.info({ groupCode: packet.groupCode, shard, organizationId, isSupporter, rehearsal: isRehearsal(record) || undefined }, 'match created');
    return { kind: 'created', secret };
  }

  /**
   * At start: the matches of durable snapshots (STATE_DIR) become live again, with the same group
   * code, secret and state, on the shard their code maps to now. Returns how many were resumed.
   */
  async resume(snapshots: MatchSnapshot[], journalled?: JournalledMatches): Promise<number> {
    let n = 0;
    for (const snap of snapshots) {
      const claim = await this.deps.directory.claim(snap.match, { after: snap.epoch });
      if (!claim.ok) continue;
      const after = snap.created ? 0 : (snapshotMeta(snap.text)?.inputs ?? 0);
      const logged = await this.deps.inputs.logged(snap.groupCode, claim.record.epoch, snap.epoch, after);
      const shard = this.run(claim.record);
      void this.setTeams(claim.record);
      if (snap.created) {
        // Killed before its first snapshot: created again from its logon, at the same time (the same matchKey).
        this.deps.pool.send(shard, { t: 'create', groupCode: snap.groupCode, now: snap.created.now, logon: snap.created.logon, again: true });
        this.log.warn({ groupCode: snap.groupCode }, 'match created again from its logon: the process ended before its first snapshot');
      } else {
        this.deps.pool.send(shard, restoreCommand(this.deps.frames, snap.groupCode, snap.text, ''));
      }
      this.deps.inputs.replay(snap.groupCode, logged, after);
      this.endOrphanedRehearsal(claim.record, shard);
      n++;
    }
    if (n > 0) this.log.info({ matches: n, groupCodes: snapshots.map((s) => s.groupCode) }, 'matches restored from STATE_DIR');
    if (journalled) await endSessionsOfLostMatches(journalled, this.deps.directory, this.deps.sessions, this.log);
    return n;
  }

  /** Before a takeover loads the match's snapshot: its input log closed to the deposed owner (MatchInputs.fence). */
  fenceInputs(record: DirectoryRecord): Promise<void> {
    return this.deps.inputs.fence(record.groupCode, record.epoch);
  }

  /** The inputs logged after `snapshot` for the match about to be adopted under `record`'s epoch (rejects when the store did not answer). */
  loggedAfter(record: DirectoryRecord, snapshot: MatchSnapshot): Promise<LoggedInput[]> {
    return this.deps.inputs.logged(record.groupCode, record.epoch, snapshot.epoch, snapshotMeta(snapshot.text)?.inputs ?? 0);
  }

  /**
   * Scale-out: a match whose owner node is gone, adopted by this node (matches/takeover.ts) under
   * `record`'s new epoch, is rebuilt from its latest snapshot and the inputs logged after it
   * (`logged`: MatchInputs.logged, read before). The player-camera secret is not in snapshots (it is
   * a secret): the cameras come back with the next logon or backend answer.
   */
  adopt(record: DirectoryRecord, snapshot: MatchSnapshot, logged: readonly LoggedInput[]): void {
    const shard = this.run(record);
    const { created } = snapshot;
    // Lost before its first snapshot: created again from its logon, at the same time (the same matchKey).
    if (created) this.deps.pool.send(shard, { t: 'create', groupCode: record.groupCode, now: created.now, logon: created.logon, again: true, frameNoBase: (this.deps.frames.latest(record.groupCode)?.frameNo ?? 0) + 1 });
    else this.deps.pool.send(shard, restoreCommand(this.deps.frames, record.groupCode, snapshot.text, ''));
    this.deps.inputs.replay(record.groupCode, logged, created ? 0 : (snapshotMeta(snapshot.text)?.inputs ?? 0));
    this.log.info({ groupCode: record.groupCode, epoch: record.epoch, snapshotEpoch: snapshot.epoch, savedAt: snapshot.savedAt, replayedInputs: logged.length }, 'match adopted from its snapshot');
    this.endOrphanedRehearsal(record, shard);
  }

  /** A rehearsal rebuilt from its snapshot (restart, adoption) has lost its playback: it ends (a last frame, then the removal path). */
  private endOrphanedRehearsal(record: DirectoryRecord, shard: number): void {
    if (!isRehearsal(record)) return;
    this.log.info({ groupCode: record.groupCode }, 'rehearsal rebuilt without its playback: ended');
    this.deps.pool.send(shard, { t: 'remove', groupCode: record.groupCode });
  }

  /**
   * Scale-out: another node owns the match now (this node lost its lease): it stops running here at
   * once, without a last frame, a completion or a removal (the new owner carries on). True when it ran here.
   */
  evict(groupCode: string): boolean {
    const local = this.deps.routes.delete(groupCode);
    if (!local) return false;
    this.deps.pool.send(local.shard, { t: 'evict', groupCode });
    this.deps.inputs.drop(groupCode, local.epoch);
    this.deps.sync.forget(groupCode);
    this.deps.frames.disown(groupCode);
    this.deps.events.emit('matchStopped', { groupCode });
    this.log.warn({ groupCode, epoch: local.epoch }, 'match evicted: another node owns it now');
    return true;
  }

  /** Scale-out: Redis lost the match and this node re-asserted it under a new epoch: frames and snapshots carry the new one. */
  refence(record: DirectoryRecord): void {
    const local = this.deps.routes.get(record.groupCode);
    if (!local) return;
    this.deps.routes.add({ ...local, epoch: record.epoch });
    this.deps.frames.open(record.groupCode, record.epoch);
    const snap = this.deps.snapshots.latest(record.groupCode);
    if (snap) void this.deps.snapshots.put({ ...snap, epoch: record.epoch, match: record, savedAt: Date.now() }).catch(() => undefined);
  }

  /** This process runs a claimed match: its shard, its frame channel. */
  private run(record: DirectoryRecord): number {
    const shard = this.deps.pool.shardOf(record.groupCode);
    this.deps.routes.add({ groupCode: record.groupCode, shard, epoch: record.epoch, camSecret: '', inputs: 0 });
    this.deps.frames.open(record.groupCode, record.epoch);
    this.deps.events.emit('matchRunning', { groupCode: record.groupCode, epoch: record.epoch });
    return shard;
  }

  private setTeams(record: DirectoryRecord): Promise<void> {
    return this.deps.teamInfo.set(record.groupCode, record.teams).catch((err: Error) => {
      this.log.error({ groupCode: record.groupCode, error: err.message }, 'team info not stored');
    });
  }

  /**
   * The match is gone from its shard, or lost with it: out of the routes, the directory, the
   * snapshots and the frame channels; its sessions end (their sockets close wherever they are:
   * `match_removed`). A removal seen twice (re-applied after a shard restart) does nothing.
   */
  private remove(groupCode: string, reason: string): void {
    const { routes, directory, snapshots, frames, sessions, control } = this.deps;
    const local = routes.delete(groupCode);
    if (!local) return;
    const record = directory.release(groupCode, local.epoch);
    this.deps.inputs.drop(groupCode, local.epoch);
    snapshots.delete(groupCode, local.epoch).catch((err: Error) => this.log.error({ groupCode, error: err.message }, 'snapshot not deleted'));
    this.deps.sync.forget(groupCode);
    // The final frame (its text came just before the removal: workers/shard/shard.ts) for the feeds' final state.
    const last = frames.latest(groupCode);
    const finalFrameText = last ? last.frameText ?? frames.askFrameText(last) : null;
    frames.end(groupCode);
    this.deps.events.emit('matchStopped', { groupCode, ...(finalFrameText ? { finalFrameText } : {}) });
    this.log.info({ groupCode, reason, inputs: local.inputs }, 'match removed');
    const matchId = record?.matchId ?? '';
    // Auxiliary sessions follow the game's match id: they end with the last live match of that id.
    const stillLive = matchId ? (directory.groupsForMatchId(matchId)?.size ?? 0) > 0 : true;
    sessions.end({ observersOf: groupCode, auxiliariesOf: stillLive ? undefined : matchId })
      .then((ended) => control.publish({ t: 'match_removed', groupCode, matchId, reason, sessionIds: ended.map((s) => s.id) }))
      .catch((err: Error) => this.log.error({ groupCode, error: err.message }, 'sessions of a removed match not ended'));
  }

  private onControl(message: ControlMessage): void {
    if (message.t === 'force_end') {
      const local = this.deps.routes.get(message.groupCode);
      if (local) this.deps.pool.send(local.shard, { t: 'remove', groupCode: message.groupCode });
    } else if (message.t === 'match_removed') {
      for (const finish of [...(this.removalWaiters.get(message.groupCode) ?? [])]) finish(true);
    }
  }

  /**
   * Operator force-end: the owning shard sends a final frame, completes the match with the backend
   * when it is registered and removes it. Resolves true once the match is gone, false when it is
   * unknown or its owner did not confirm within FORCE_END_TIMEOUT_MS.
   */
  forceEnd(groupCode: string): Promise<boolean> {
    if (!this.deps.directory.get(groupCode)) return Promise.resolve(false);
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
      this.deps.control.publish({ t: 'force_end', groupCode }).catch(() => finish(false));
    });
  }

  /**
   * A new group secret for a live match (returned once, kept as a digest): the old one stops working
   * at once, and the observer sessions that logged on with it end. Undefined when the match is unknown.
   */
  async rotateSecret(groupCode: string): Promise<{ secret: string; closedSessions: number } | undefined> {
    const secret = generateSecret(this.deps.config.GROUP_SECRET_LENGTH);
    if (!this.deps.directory.setSecretDigest(groupCode, secretDigest(secret))) return undefined;
    const ended = await this.deps.sessions.end({ observersOf: groupCode });
    await this.deps.control.publish({ t: 'secret_rotated', groupCode, sessionIds: ended.map((s) => s.id) });
    return { secret, closedSessions: ended.length };
  }

  /**
   * Shutdown, after ingestion stopped: every shard sends its pending frames and a snapshot of every
   * match. With durable snapshots the matches are kept (they will be resumed, so not completed):
   * each one's latest snapshot is stored again with its record as it is now. Otherwise every match
   * ends (a last frame with isRunning false) and is removed, registered ones completed with the
   * backend (bounded by `deadline`).
   */
  async shutdown(deadline: number): Promise<void> {
    const { pool, snapshots, routes, directory } = this.deps;
    const keep = snapshots.durable;
    await pool.drain(!keep, Math.max(SHARD_DRAIN_MIN_MS, deadline - Date.now()));
    if (keep) {
      const now = Date.now();
      for (const local of routes.all()) {
        const snap = snapshots.latest(local.groupCode);
        const match = directory.get(local.groupCode);
        if (snap && match) void snapshots.put({ ...snap, epoch: local.epoch, match, savedAt: now }).catch(() => undefined);
      }
      await snapshots.flush();
    } else {
      await this.deps.sync.drain(Math.max(0, deadline - Date.now()));
    }
  }

  close(): void {
    this.unsubscribe();
  }
}
