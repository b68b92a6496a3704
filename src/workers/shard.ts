// A shard thread: owns its matches. All mutation, timers, filtering and serialization of a match
// happen here; the main thread only routes raw payloads in and publishes the frames that come out.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { jsonDepthExceeds } from '../protocol/json-depth.js';
import { FIELD_SEP, RECORD_SEP, type BackendEffect, type MatchSummary, type ShardCmd, type ShardEvent, type ShardOut } from '../protocol/shard-messages.js';
import { wireMessage } from '../protocol/wire.js';
import { createClock } from './clock.js';
import { deflateDelta } from './deflate-delta.js';
import { wireSerializeMatch } from './wire-serializer.js';
import { auxSessionRefusal, Match } from './match/match.js';
import { serializeMatch } from './match/serialize.js';
import { ReplayRecorder, replayHeader } from './replay-recorder.js';

export interface ShardSettings {
  shard: number;
  intervalMs: number;
  inactivityMs: number;
  trustReplayTimestamps: boolean;
  sponsorLogoUrl: string;
  recordReplays: boolean;
  replayDir: string;
  serviceVersion: string;
  /** Compute permessage-deflate deltas between consecutive frames (COMPRESSION). */
  compression: boolean;
  /** FRAME_SERIALIZER: 'wire' (one pass, cached subtrees) or 'json' (fast-json-stringify, then escaped). */
  frameSerializer: 'wire' | 'json';
  /** SNAPSHOT_INTERVAL_MS: how often the matches that changed are snapshotted to the main thread. */
  snapshotIntervalMs?: number;
  /** FAULT_INJECTION (tests only): honour `test_crash`. */
  faultInjection?: boolean;
}

/** Distinct envelope types counted in the stats; further names count as 'other' (bounded labels). */
const MAX_TYPE_NAMES = 64;

/** How often the dashboard summaries of changed matches go to the main thread. */
const SUMMARY_INTERVAL_MS = 500;

/** Distinct (reason, type) drops logged per match: types are the client's choice, so past this a reason is logged once more at most. */
const MAX_LOGGED_DROPS = 64;
/** Longest envelope type written to a drop log line. */
const MAX_LOGGED_TYPE = 64;

interface Slot {
  groupCode: string;
  match: Match;
  lastSentEvent: number;
  lastSentAt: number;
  lastActivityAt: number;
  matchId: string;
  recorder?: ReplayRecorder;
  /** Frames sent so far, and the last one's wire bytes (the base of the next delta). */
  seq: number;
  prevWire: Buffer | null;
  /** Drop reasons already logged for this match (a reason is logged once, then only counted). */
  loggedDrops: Set<string>;
  /** Wall-clock time of the last applied message, and the eventNumber of the last dashboard summary. */
  lastEventAt: number;
  summarizedEvent: number;
  /** Players on the roster when the main thread was last told (auxiliary logons must name one). */
  rosterSize: number;
  /** The eventNumber of the last snapshot (-1: none yet), and the replay file's start time. */
  snapshotEvent?: number;
  recordStart?: number;
}

export class Shard {
  private readonly slots = new Map<string, Slot>();
  private readonly byMatchId = new Map<string, Set<string>>();
  private readonly dirty = new Set<Slot>();
  private readonly clock;
  private out: ShardOut = emptyOut();
  private dueTimer: NodeJS.Timeout | null = null;
  private dueAt = Infinity;
  private readonly tickTimer: NodeJS.Timeout;
  private applied = 0;
  private framesSerialized = 0;
  private readonly dropped: Record<string, number> = {};
  private lastStatsAt = 0;
  private cycleMicros = 0;
  private lastSummaryAt = 0;
  /** Reliability: the last batch mark processed, muted re-application, snapshot rounds, stats. */
  private mark = 0;
  private muted = false;
  private lastSnapshotAt = Date.now();
  private lastSnapshotMark = -1;
  private readonly appliedByType: Record<string, number> = {};
  private typeNames = 0;
  private cycles: number[] = [];
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 10 });

  constructor(private readonly settings: ShardSettings, private readonly post: (out: ShardOut) => void) {
    this.clock = createClock(settings.trustReplayTimestamps);
    this.tickTimer = setInterval(() => this.tick(), settings.intervalMs);
    this.loopDelay.enable();
  }

  handle(cmds: ShardCmd[]): void {
    const now = Date.now();
    for (const cmd of cmds) {
      try {
        this.handleOne(cmd, now);
      } catch (err) {
        // The engine never throws by contract; this is the last guard so one match cannot stop the shard.
        this.event({ t: 'log', level: 'error', msg: 'shard command failed', fields: { cmd: cmd.t, error: (err as Error).message } });
      }
    }
    this.flushDue(Date.now());
    this.flush();
  }

  private handleOne(cmd: ShardCmd, now: number): void {
    switch (cmd.t) {
      case 'create': return this.create(cmd.groupCode, cmd.logon, cmd.now);
      case 'obs': {
        let start = 0;
        for (let k = 0; k < cmd.count; k++) {
          let end = cmd.packed.indexOf(RECORD_SEP, start);
          if (end < 0) end = cmd.packed.length;
          const a = cmd.packed.indexOf(FIELD_SEP, start);
          const b = cmd.packed.indexOf(FIELD_SEP, a + 1);
          this.applyObs(cmd.packed.slice(start, a), cmd.packed.slice(b + 1, end), Number(cmd.packed.slice(a + 1, b)));
          start = end + 1;
        }
        return;
      }
      case 'aux': {
        for (let i = 0; i < cmd.raws.length; i++) this.applyAux(cmd.matchIds[i], cmd.playerIds[i], cmd.raws[i], cmd.nows[i]);
        return;
      }
      case 'aux_disconnected': {
        for (const code of this.byMatchId.get(cmd.matchId) ?? []) {
          const slot = this.slots.get(code)!;
          slot.match.auxDisconnected(cmd.playerId, this.clock.tickTime(cmd.now) ?? cmd.now);
          this.touched(slot);
        }
        return;
      }
      case 'registered': {
        const slot = this.slots.get(cmd.groupCode);
        if (slot) { slot.match.setRegistered(cmd.registered); this.touched(slot); }
        return;
      }
      case 'playercams': {
        const slot = this.slots.get(cmd.groupCode);
        if (slot) { slot.match.applyPlayercams(cmd.result, this.clock.tickTime(cmd.now) ?? cmd.now); this.touched(slot); }
        return;
      }
      case 'mmr': {
        const slot = this.slots.get(cmd.groupCode);
        if (slot) { slot.match.applyMmr(cmd.result, this.clock.tickTime(cmd.now) ?? cmd.now); this.touched(slot); }
        return;
      }
      case 'remove': {
        const slot = this.slots.get(cmd.groupCode);
        if (slot) this.endMatch(slot, now, 'admin'); // operator force-end
        return;
      }
      case 'restore': return this.restore(cmd);
      case 'mark':
        this.mark = cmd.seq;
        return;
      case 'mute': {
        this.muted = cmd.on;
        if (!cmd.on) for (const slot of this.slots.values()) this.touched(slot);
        return;
      }
      case 'final': return this.final(cmd.complete, now);
      case 'test_crash': {
        if (this.settings.faultInjection) setImmediate(() => { throw new Error('injected shard fault (FAULT_INJECTION)'); });
        return;
      }
      case 'stop': {
        this.loopDelay.disable();
        clearInterval(this.tickTimer);
        if (this.dueTimer) clearTimeout(this.dueTimer);
        for (const slot of this.slots.values()) slot.recorder?.close();
        return;
      }
    }
  }

  private create(groupCode: string, logon: Extract<ShardCmd, { t: 'create' }>['logon'], now: number): void {
    const existing = this.slots.get(groupCode);
    if (existing) this.remove(existing, 'admin');
    const match = Match.create(logon, now, { sponsorLogoUrl: this.settings.sponsorLogoUrl });
    const slot: Slot = {
      groupCode, match, lastSentEvent: match.eventNumber - 1, lastSentAt: 0, lastActivityAt: Date.now(),
      matchId: match.matchId, loggedDrops: new Set(), seq: 0, prevWire: null, rosterSize: 0,
      lastEventAt: Date.now(), summarizedEvent: -1, snapshotEvent: -1, recordStart: now,
    };
    if (this.settings.recordReplays) {
      slot.recorder = new ReplayRecorder(this.settings.replayDir, groupCode, now, replayHeader(logon, this.settings.serviceVersion, now));
    }
    this.slots.set(groupCode, slot);
    this.drainEffects(slot);
    this.touched(slot);
  }

  /** A match rebuilt from its snapshot: the next frame is a keyframe with its full state. */
  private restore(cmd: Extract<ShardCmd, { t: 'restore' }>): void {
    // snapshotText(): {"slot":<numbers only>,"match":<the engine's snapshot>}
    const cut = cmd.snapshot.indexOf(',"match":');
    if (!cmd.snapshot.startsWith('{"slot":') || cut < 0) throw new Error('not a shard snapshot');
    const snap = { slot: JSON.parse(cmd.snapshot.slice(8, cut)) as { lastActivityAt: number; lastEventAt: number; recordStart: number } };
    const match = Match.fromSnapshot(cmd.snapshot.slice(cut + 9, -1), cmd.playercamSecret);
    const existing = this.slots.get(cmd.groupCode);
    if (existing) this.remove(existing, 'admin');
    const slot: Slot = {
      groupCode: cmd.groupCode, match, lastSentEvent: match.eventNumber - 1, lastSentAt: 0, lastActivityAt: snap.slot.lastActivityAt,
      matchId: '', loggedDrops: new Set(), seq: cmd.seqBase, prevWire: null, rosterSize: 0,
      lastEventAt: snap.slot.lastEventAt, summarizedEvent: -1, snapshotEvent: match.eventNumber, recordStart: snap.slot.recordStart,
    };
    if (this.settings.recordReplays) {
      slot.recorder = ReplayRecorder.reopen(this.settings.replayDir, cmd.groupCode, snap.slot.recordStart);
    }
    this.slots.set(cmd.groupCode, slot);
    if (match.matchId) this.matchIdChanged(slot);
    this.rosterChanged(slot);
    this.touched(slot);
  }

  /** One match's snapshot text: the shard's bookkeeping and the engine's snapshot. */
  private snapshotText(slot: Slot): string {
    const meta = { lastActivityAt: slot.lastActivityAt, lastEventAt: slot.lastEventAt, recordStart: slot.recordStart ?? 0 };
    return '{"slot":' + JSON.stringify(meta) + ',"match":' + slot.match.toSnapshot() + '}';
  }

  /**
   * Snapshots of the matches that changed since their last one (all with `force`), with the last
   * batch mark processed: the main thread can forget the batches up to it.
   */
  private snapshotRound(force: boolean): void {
    const codes: string[] = [];
    const texts: string[] = [];
    const camSecrets: string[] = [];
    for (const slot of this.slots.values()) {
      if (!force && slot.snapshotEvent === slot.match.eventNumber) continue;
      try {
        texts.push(this.snapshotText(slot));
      } catch (err) {
        this.event({ t: 'log', level: 'error', msg: 'snapshot failed', fields: { groupCode: slot.groupCode, error: (err as Error).message } });
        continue;
      }
      codes.push(slot.groupCode);
      camSecrets.push(slot.match.playercamSecret);
      slot.snapshotEvent = slot.match.eventNumber;
    }
    if (codes.length === 0 && !force && this.lastSnapshotMark === this.mark) return;
    this.lastSnapshotMark = this.mark;
    this.out.snapshots = { seq: this.mark, codes, texts, camSecrets };
  }

  /**
   * Shutdown: every pending frame now and a snapshot of every match (STATE_DIR: they are resumed
   * after the restart, so they go on). With `complete` (no STATE_DIR) the matches end here, completed
   * with the backend: each one's last frame, its pending changes included, says it ended.
   */
  private final(complete: boolean, now: number): void {
    this.muted = false;
    if (complete) for (const slot of [...this.slots.values()]) this.endMatch(slot, now, 'shutdown');
    else for (const slot of [...this.dirty]) this.sendFrame(slot, now);
    this.snapshotRound(true);
    this.event({ t: 'final_done' });
  }

  private parse(raw: string, groupCode: string): Record<string, unknown> | null {
    if (jsonDepthExceeds(raw)) {
      this.drop(groupCode, 'too_deep', '?');
      return null;
    }
    try {
      const value: unknown = JSON.parse(raw);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
      this.drop(groupCode, 'invalid_envelope', '?');
    } catch {
      this.drop(groupCode, 'invalid_json', '?');
    }
    return null;
  }

  private applyObs(groupCode: string, raw: string, receivedAt: number): void {
    const env = this.parse(raw, groupCode);
    if (!env) return;
    const type = typeof env.type === 'string' ? env.type : '?';
    // Recorded auxiliary records (replays, clients.md 3.1) carry a match id, not a group code: they go
    // to the session's own match, whatever match id, group code or player they name. The observer
    // owns that match (it holds the group secret) and may set any of its state anyway.
    if (env.groupCode !== groupCode && !type.startsWith('aux_')) return this.drop(groupCode, 'group_mismatch', type);
    const slot = this.slots.get(groupCode);
    if (!slot) return this.drop(groupCode, 'no_match', type);
    this.applyTo(slot, env, type, receivedAt);
  }

  private applyAux(matchId: string, playerId: string, raw: string, receivedAt: number): void {
    const codes = this.byMatchId.get(matchId);
    const anyCode = codes?.values().next().value ?? '';
    const env = this.parse(raw, anyCode);
    if (!env || !codes) return;
    const type = typeof env.type === 'string' ? env.type : '?';
    // The auxiliary trust rule, once per message and before anything is recorded; the engine's
    // applyAux() applies the same rule again for each match.
    const refusal = auxSessionRefusal(env.type, env.playerId, playerId);
    if (refusal) return this.drop(anyCode, refusal, type);
    if (env.matchId !== matchId) return this.drop(anyCode, 'match_mismatch', type);
    for (const code of codes) this.applyTo(this.slots.get(code)!, env, type, receivedAt, playerId);
  }

  /** `auxPlayerId`: the auxiliary session's player (aux_data), undefined for the observer's obs_data. */
  private applyTo(slot: Slot, env: Record<string, unknown>, type: string, receivedAt: number, auxPlayerId?: string): void {
    if (slot.match.ended) return this.drop(slot.groupCode, 'match_ended', type);
    const ts = this.clock.messageTime(receivedAt, env);
    slot.lastEventAt = receivedAt;
    slot.match.advance(ts);
    if (!this.muted) slot.recorder?.record(env, ts);
    const result = auxPlayerId === undefined ? slot.match.apply(env, ts) : slot.match.applyAux(env, auxPlayerId, ts);
    if (!result.ok) {
      this.drop(slot.groupCode, result.reason, type, result.detail);
    } else {
      this.applied++;
      this.countType(type);
      if (type === 'roster') this.rosterChanged(slot);
    }
    if (slot.match.matchId !== slot.matchId) this.matchIdChanged(slot);
    this.drainEffects(slot);
    this.touched(slot);
  }

  private matchIdChanged(slot: Slot): void {
    if (slot.matchId) {
      const set = this.byMatchId.get(slot.matchId);
      set?.delete(slot.groupCode);
      if (set && set.size === 0) this.byMatchId.delete(slot.matchId);
    }
    slot.matchId = slot.match.matchId;
    if (slot.matchId) {
      let set = this.byMatchId.get(slot.matchId);
      if (!set) this.byMatchId.set(slot.matchId, (set = new Set()));
      set.add(slot.groupCode);
    }
    this.event({ t: 'match_id', groupCode: slot.groupCode, matchId: slot.matchId });
  }

  /** The main thread learns the roster's player ids as they grow (players are only ever added): auxiliary logons must name one. */
  private rosterChanged(slot: Slot): void {
    const teams = slot.match.snapshot().teams;
    if (teams[0].players.length + teams[1].players.length === slot.rosterSize) return;
    const playerIds = [...teams[0].players, ...teams[1].players].map((p) => p.riotId);
    slot.rosterSize = playerIds.length;
    this.event({ t: 'roster', groupCode: slot.groupCode, playerIds });
  }

  private drainEffects(slot: Slot): void {
    for (const effect of slot.match.takeEffects()) {
      const groupCode = slot.groupCode;
      const matchId = slot.match.matchId;
      let backend: BackendEffect | null = null;
      switch (effect.kind) {
        case 'register':
          backend = { kind: 'register', groupCode, matchId: effect.matchId || matchId, body: slot.match.registerBody() };
          break;
        case 'update':
          backend = { kind: 'update', groupCode, matchId, body: slot.match.registerBody() };
          break;
        case 'complete':
          // Sent by remove(), after the final frame is out (match-rules.md 14.2 step 6).
          break;
        case 'stats_add':
          backend = { kind: 'stats_add', groupCode, matchId };
          break;
        case 'stats_fetch':
          backend = { kind: 'stats_fetch', groupCode, matchId, delayMs: effect.delayMs };
          break;
        case 'mmr_fetch':
          backend = { kind: 'mmr_fetch', groupCode, matchId, playerIds: effect.playerIds };
          break;
        case 'warn':
          this.event({ t: 'log', level: 'warn', msg: effect.detail, fields: { groupCode, code: effect.code } });
          break;
        case 'stats_region':
          backend = { kind: 'stats_region', groupCode, matchId, playerId: effect.playerId };
          break;
        case 'playercam_fetch':
          backend = { kind: 'playercam_fetch', groupCode, identifier: effect.identifier, secret: slot.match.playercamSecret };
          break;
        case 'team_info_final':
          this.event({ t: 'team_info_final', groupCode, info: effect.info });
          break;
      }
      if (backend) this.event({ t: 'effect', effect: backend });
    }
  }

  private drop(groupCode: string, reason: string, type: string, detail?: string): void {
    this.dropped[reason] = (this.dropped[reason] ?? 0) + 1;
    const slot = this.slots.get(groupCode);
    let key = reason + '\x1f' + type;
    if (slot) {
      if (slot.loggedDrops.has(key)) return;
      if (slot.loggedDrops.size >= MAX_LOGGED_DROPS) {
        key = reason;
        if (slot.loggedDrops.has(key)) return;
      }
      slot.loggedDrops.add(key);
    }
    if (type.length > MAX_LOGGED_TYPE) type = type.slice(0, MAX_LOGGED_TYPE) + '…';
    this.event({ t: 'drop', groupCode, reason, type, detail });
  }

  private event(e: ShardEvent): void {
    // Re-applying batches already acknowledged (muted): their effects and logs went out before.
    if (this.muted && (e.t === 'effect' || e.t === 'drop' || e.t === 'log')) return;
    this.out.events.push(e);
  }

  private countType(type: string): void {
    let name = type;
    if (this.appliedByType[name] === undefined) {
      if (this.typeNames >= MAX_TYPE_NAMES || !/^[a-z_]{1,40}$/.test(name)) name = 'other';
      else this.typeNames++;
    }
    this.appliedByType[name] = (this.appliedByType[name] ?? 0) + 1;
  }

  /** Leading edge: a change goes out at once when the last frame is one interval old, else when it is. */
  private touched(slot: Slot): void {
    if (slot.match.eventNumber > slot.lastSentEvent) this.dirty.add(slot);
  }

  private flushDue(now: number): void {
    if (this.muted) return;
    let nextDue = Infinity;
    for (const slot of this.dirty) {
      const due = slot.lastSentAt + this.settings.intervalMs;
      if (due <= now) this.sendFrame(slot, now);
      else if (due < nextDue) nextDue = due;
    }
    if (nextDue < Infinity && nextDue < this.dueAt) {
      if (this.dueTimer) clearTimeout(this.dueTimer);
      this.dueAt = nextDue;
      this.dueTimer = setTimeout(() => {
        this.dueTimer = null;
        this.dueAt = Infinity;
        this.flushDue(Date.now());
        this.flush();
      }, Math.max(0, nextDue - now));
    }
  }

  private sendFrame(slot: Slot, now: number, force = false): void {
    this.dirty.delete(slot);
    if (!force && slot.match.eventNumber <= slot.lastSentEvent) return;
    let wire: string;
    try {
      // serverTime: the wall clock; with the recorded clock, the match clock (the time of the last
      // change), so that frames stay byte-identical whatever the shard count and replay speed.
      const serverTime = this.settings.trustReplayTimestamps ? slot.match.lastChangeAt : now;
      wire = this.settings.frameSerializer === 'wire'
        ? wireSerializeMatch(slot.match, serverTime)
        : wireMessage(serializeMatch(slot.match, serverTime));
    } catch (err) {
      this.event({ t: 'log', level: 'error', msg: 'serialization failed', fields: { groupCode: slot.groupCode, error: (err as Error).message } });
      slot.lastSentEvent = slot.match.eventNumber;
      return;
    }
    this.framesSerialized++;
    let delta: Uint8Array | null = null;
    if (this.settings.compression) {
      // One delta per frame, for every frontend whose deflate window ends with the previous frame.
      const bytes = Buffer.from(wire);
      if (slot.prevWire) delta = deflateDelta(slot.prevWire, bytes);
      slot.prevWire = bytes;
    }
    slot.seq++;
    this.out.codes.push(slot.groupCode);
    this.out.seqs.push(slot.seq);
    this.out.wires.push(wire);
    this.out.deltas.push(delta === null ? null : Buffer.from(delta.buffer, delta.byteOffset, delta.byteLength).toString('latin1'));
    slot.lastSentEvent = slot.match.eventNumber;
    slot.lastSentAt = now;
    slot.lastActivityAt = now;
    if (slot.match.ended) this.remove(slot, 'ended');
  }

  /**
   * A match that ends without game_end (operator force-end, inactivity, shutdown without
   * STATE_DIR): a last frame even when nothing changed, with isRunning false (Match.stopRunning)
   * so that frontends and tools can tell it is over, then the removal path (backend completion when
   * registered). match-rules.md 14.1 removes an inactive match without a frame; this one is added.
   */
  private endMatch(slot: Slot, now: number, reason: 'inactive' | 'admin' | 'shutdown'): void {
    slot.match.stopRunning(this.clock.tickTime(now) ?? slot.match.lastChangeAt);
    this.sendFrame(slot, now, true);
    if (this.slots.get(slot.groupCode) === slot) this.remove(slot, reason); // sendFrame removed it if game_end was applied
  }

  private remove(slot: Slot, reason: 'ended' | 'inactive' | 'admin' | 'shutdown'): void {
    this.slots.delete(slot.groupCode);
    this.dirty.delete(slot);
    if (slot.matchId) {
      const set = this.byMatchId.get(slot.matchId);
      set?.delete(slot.groupCode);
      if (set && set.size === 0) this.byMatchId.delete(slot.matchId);
    }
    if (slot.match.isRegistered) {
      this.event({ t: 'effect', effect: { kind: 'complete', groupCode: slot.groupCode, matchId: slot.matchId, body: slot.match.registerBody() } });
    }
    slot.recorder?.close();
    this.event({ t: 'removed', groupCode: slot.groupCode, reason });
  }

  /** The cycle: timers, inactivity, frames that are due. */
  private tick(): void {
    const started = performance.now();
    const now = Date.now();
    const tickTime = this.clock.tickTime(now);
    for (const slot of this.slots.values()) {
      if (tickTime !== null) {
        slot.match.advance(tickTime);
        this.drainEffects(slot);
        this.touched(slot);
      }
      if (now - slot.lastActivityAt > this.settings.inactivityMs && !this.dirty.has(slot)) this.endMatch(slot, now, 'inactive');
    }
    this.flushDue(now);
    if (now - this.lastSnapshotAt >= (this.settings.snapshotIntervalMs ?? 1000)) {
      this.lastSnapshotAt = now;
      this.snapshotRound(false);
    }
    this.cycleMicros = Math.round((performance.now() - started) * 1000);
    if (this.cycles.length < 1000) this.cycles.push(this.cycleMicros);
    if (now - this.lastStatsAt >= 1000) {
      this.lastStatsAt = now;
      this.out.stats = {
        shard: this.settings.shard, matches: this.slots.size, applied: this.applied, dropped: { ...this.dropped },
        framesSerialized: this.framesSerialized, cycleMicros: this.cycleMicros,
        appliedByType: { ...this.appliedByType }, cycles: this.cycles,
        loopDelayP99Ms: finiteMs(this.loopDelay.percentile(99)), loopDelayMaxMs: finiteMs(this.loopDelay.max),
      };
      this.cycles = [];
      this.loopDelay.reset();
    }
    this.summarize(now);
    this.flush();
  }

  /** Dashboard summaries (a few fields each) of the matches that changed since the last ones. */
  private summarize(now: number): void {
    if (now - this.lastSummaryAt < SUMMARY_INTERVAL_MS) return;
    this.lastSummaryAt = now;
    const summaries: MatchSummary[] = [];
    for (const slot of this.slots.values()) {
      if (slot.match.eventNumber === slot.summarizedEvent) continue;
      slot.summarizedEvent = slot.match.eventNumber;
      const s = slot.match.snapshot();
      const team = (i: 0 | 1) => ({ name: s.teams[i].teamName, tricode: s.teams[i].teamTricode, score: s.teams[i].roundsWon });
      summaries.push({
        groupCode: slot.groupCode, teams: [team(0), team(1)], roundNumber: s.roundNumber, roundPhase: s.roundPhase,
        map: s.map, lastEventAt: slot.lastEventAt,
      });
    }
    if (summaries.length > 0) this.out.summaries = summaries;
  }

  private flush(): void {
    if (this.out.codes.length === 0 && this.out.events.length === 0 && !this.out.stats && !this.out.summaries && !this.out.snapshots) return;
    const out = this.out;
    out.ack = this.mark;
    this.out = emptyOut();
    this.post(out);
  }
}

/** A histogram value in ns as ms (0 when there was no sample). */
const finiteMs = (ns: number): number => (Number.isFinite(ns) ? ns / 1e6 : 0);

function emptyOut(): ShardOut {
  return { codes: [], seqs: [], wires: [], deltas: [], events: [] };
}

if (parentPort) {
  const port = parentPort;
  const shard = new Shard(workerData as ShardSettings, (out) => port.postMessage(out));
  port.on('message', (cmds: ShardCmd[]) => {
    shard.handle(cmds);
    if (cmds.some((c) => c.t === 'stop')) port.close();
  });
}
