// The shard pool: a fixed set of worker threads, hash(groupCode) % N. Commands to a shard are
// queued and posted as one array per batch window (`batchMs`, or at once past MAX_BATCH_COMMANDS);
// the observer payloads of a batch travel packed into one string inside one `obs` command.
//
// Crash recovery: every batch ends with a `mark`; batches are retained here until a snapshot round
// of the shard covers them (ShardOut.snapshots.mark). When a shard thread dies, a new one gets the
// matches' latest snapshots (restore commands from matches/recovery.ts), then the retained batches again: those
// the old thread had already acknowledged (ShardOut.ack) muted, the others as new. A thread that
// dies again within CRASH_WINDOW_MS gets the snapshots only, a third time nothing (docs/reliability.md).
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import {
  CRASH_WINDOW_MS,
  CRASHES_GIVE_UP,
  CRASHES_SNAPSHOTS_ONLY,
  EXIT_GRACE_MS,
  MAX_BATCH_COMMANDS,
  MAX_RETAINED_PAYLOADS,
  STALL_CHECK_MS,
  STALL_MS,
} from '../../protocol/limits.js';
import { FIELD_SEP, RECORD_SEP, type AuxBatchCmd, type ObsBatchCmd, type ShardCmd, type ShardOut } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import type { RecoveryMode } from '../events.js'; // the shardRestarted event's vocabulary, declared below this module
import type { Logger } from '../log.js';

/** FNV-1a: cheap, stable across processes and restarts. */
export function shardIndexOf(groupCode: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < groupCode.length; i++) {
    h ^= groupCode.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

const WORKER_URL = new URL('../../workers/shard/thread.js', import.meta.url);

/** The shard thread module's startInlineShard (workers/shard/thread.ts), for SHARD_WORKERS=0. */
export type InlineShardStart = (settings: ShardSettings, onOutput: (out: ShardOut) => void, onFault: (err: Error) => void) => { post(cmds: ShardCmd[]): void; stop(): void };

/**
 * SHARD_WORKERS=0: the shard module loaded on the main thread, by the URL a Worker would be started
 * on (main/ imports nothing of workers/; this is the same reference the Worker takes).
 */
export async function loadInlineShard(): Promise<InlineShardStart> {
  return ((await import(WORKER_URL.href)) as { startInlineShard: InlineShardStart }).startInlineShard;
}

/** What the pool uses of a shard's Worker. */
type Listener = (...args: any[]) => void; // eslint-disable-line @typescript-eslint/no-explicit-any -- node's listener type
interface ShardThread {
  postMessage(cmds: ShardCmd[]): void;
  on(event: string, listener: Listener): unknown;
  once(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
  terminate(): Promise<number>;
}

/**
 * The one shard on the main thread, behind a Worker's face: commands run when posted, outputs
 * arrive as `message` events. No thread, so no hand-offs (docs/benchmarks.md). An exception in the
 * shard is what a thread's death is: `error`, then `exit` with code 1, and the pool restarts it.
 */
class InlineShard extends EventEmitter {
  private readonly shard: ReturnType<InlineShardStart>;
  constructor(start: InlineShardStart, settings: ShardSettings) {
    super();
    this.shard = start(settings, (out) => this.emit('message', out), (err) => {
      this.emit('error', err);
      queueMicrotask(() => this.emit('exit', 1)); // after the outputs it made before failing
    });
  }
  postMessage(cmds: ShardCmd[]): void {
    this.shard.post(cmds);
  }
  terminate(): Promise<number> {
    this.shard.stop();
    queueMicrotask(() => this.emit('exit', 0));
    return Promise.resolve(0);
  }
}

export type { RecoveryMode };

/** A batch kept for replay after a crash: its mark, its commands, its payload count. */
interface Retained { mark: number; cmds: ShardCmd[]; size: number }

/** Commands worth re-applying after a crash. */
const replayable = (c: ShardCmd): boolean => c.t !== 'test_crash' && c.t !== 'drain' && c.t !== 'exit' && c.t !== 'mute' && c.t !== 'summaries';

export interface ShardPoolOptions {
  count: number;
  /** Commands wait up to this long to travel in one postMessage (0: the next event-loop turn). */
  batchMs: number;
  settings: Omit<ShardSettings, 'shard'>;
  /** SHARD_YOUNG_GENERATION_MB: each thread's young generation (0: V8's default). */
  youngGenerationMb?: number;
  log: Logger;
  onOutput(shard: number, out: ShardOut): void;
  /** A shard thread died: the restore commands for its matches (none with mode 'none'). */
  onCrash(shard: number, mode: RecoveryMode): ShardCmd[];
  /** SHARD_WORKERS=0 (loadInlineShard): one shard on the main thread; `count` is then 1. */
  inline?: InlineShardStart;
}

export class ShardPool {
  private readonly workers: ShardThread[] = [];
  private readonly pending: ShardCmd[][] = [];
  private flushScheduled = false;
  private stopping = false;
  private readonly log: Logger;
  /** The last batch mark given out (marks grow across all shards). */
  private mark = 0;
  private readonly retained: Retained[][] = [];
  private readonly retainedSize: number[] = [];
  /** Per shard: the last mark acknowledged, crash times, whether the retained log is complete, last output time. */
  private readonly acked: number[] = [];
  private readonly crashes: number[][] = [];
  private readonly logBrokenUpTo: number[] = [];
  private readonly lastHeard: number[] = [];
  private readonly watchdog: NodeJS.Timeout;

  constructor(private readonly options: ShardPoolOptions) {
    this.log = options.log.child({ module: 'shards' });
    for (let i = 0; i < options.count; i++) {
      this.pending.push([]);
      this.retained.push([]);
      this.retainedSize.push(0);
      this.acked.push(0);
      this.crashes.push([]);
      this.logBrokenUpTo.push(0);
      this.lastHeard.push(Date.now());
      this.workers.push(this.spawn(i));
    }
    this.watchdog = setInterval(() => this.checkStalls(), STALL_CHECK_MS);
    this.watchdog.unref();
  }

  get count(): number {
    return this.workers.length;
  }

  private spawn(index: number): ShardThread {
    const settings: ShardSettings = { ...this.options.settings, shard: index };
    const young = this.options.youngGenerationMb ? { resourceLimits: { maxYoungGenerationSizeMb: this.options.youngGenerationMb } } : {};
    const worker: ShardThread = this.options.inline ? new InlineShard(this.options.inline, settings) : new Worker(WORKER_URL, { workerData: settings, ...young });
    worker.on('message', (out: ShardOut) => {
      if (this.workers[index] !== worker) return; // a late message of a replaced thread
      this.lastHeard[index] = Date.now();
      if (out.ack !== undefined) this.acked[index] = out.ack;
      if (out.snapshots) this.trim(index, out.snapshots.mark);
      this.options.onOutput(index, out);
    });
    worker.on('error', (err) => this.log.error({ shard: index, err: { message: err.message, stack: err.stack } }, 'shard worker error'));
    worker.on('exit', (code) => {
      if (this.stopping || this.workers[index] !== worker) return;
      this.recover(index, code);
    });
    return worker;
  }

  /** A dead shard thread: a new one, given back what it can be (see the top of this file). */
  private recover(index: number, code: number): void {
    const now = Date.now();
    const recent = this.crashes[index].filter((t) => now - t < CRASH_WINDOW_MS);
    recent.push(now);
    this.crashes[index] = recent;
    const logComplete = this.logBrokenUpTo[index] === 0;
    const mode: RecoveryMode = recent.length >= CRASHES_GIVE_UP ? 'none' : recent.length >= CRASHES_SNAPSHOTS_ONLY || !logComplete ? 'snapshots' : 'full';
    this.log.error({ shard: index, code, mode, crashesInWindow: recent.length }, 'shard worker exited; restarting it');
    const worker = this.spawn(index);
    this.workers[index] = worker;
    this.lastHeard[index] = now;
    const restores = this.options.onCrash(index, mode);
    if (restores.length > 0) worker.postMessage(restores);
    if (this.summariesWatched) worker.postMessage([{ t: 'summaries', on: true }]);
    const batches = mode === 'full' ? this.retained[index] : [];
    if (mode !== 'full') { this.retained[index] = []; this.retainedSize[index] = 0; this.logBrokenUpTo[index] = 0; }
    let muted = false;
    for (const batch of batches) {
      const mute = batch.mark <= this.acked[index];
      if (mute !== muted) { worker.postMessage([{ t: 'mute', on: mute }]); muted = mute; }
      worker.postMessage(batch.cmds);
    }
    if (muted) worker.postMessage([{ t: 'mute', on: false }]);
    if (batches.length > 0) this.log.warn({ shard: index, batches: batches.length, acknowledged: batches.filter((b) => b.mark <= this.acked[index]).length }, 'shard restarted: batches since its last snapshot applied again');
  }

  /** Batches up to `mark` are in the shard's snapshots: forget them. */
  private trim(index: number, mark: number): void {
    const list = this.retained[index];
    let n = 0;
    let size = this.retainedSize[index];
    while (n < list.length && list[n].mark <= mark) size -= list[n++].size;
    if (n > 0) list.splice(0, n);
    this.retainedSize[index] = size;
    if (this.logBrokenUpTo[index] !== 0 && mark >= this.logBrokenUpTo[index]) this.logBrokenUpTo[index] = 0;
  }

  private retain(index: number, mark: number, cmds: ShardCmd[]): void {
    let size = 0;
    for (const c of cmds) size += c.t === 'obs' ? c.count : c.t === 'aux' ? c.raws.length : 1;
    this.retained[index].push({ mark, cmds: cmds.some((c) => !replayable(c)) ? cmds.filter(replayable) : cmds, size });
    this.retainedSize[index] += size;
    if (this.retainedSize[index] > MAX_RETAINED_PAYLOADS) {
      // The shard has not snapshotted for a long time: a crash now falls back to its snapshots.
      this.log.warn({ shard: index, retained: this.retainedSize[index] }, 'shard log too long: given up until the next snapshot round');
      this.retained[index] = [];
      this.retainedSize[index] = 0;
      this.logBrokenUpTo[index] = mark;
    }
  }

  /** A thread that stopped answering (stats come every STATS_INTERVAL_MS) is ended; its exit restarts it. */
  private checkStalls(): void {
    const now = Date.now();
    for (let i = 0; i < this.workers.length; i++) {
      if (now - this.lastHeard[i] < STALL_MS || this.stopping) continue;
      this.log.error({ shard: i, silentMs: now - this.lastHeard[i] }, 'shard worker silent; terminating it');
      this.lastHeard[i] = now;
      void this.workers[i].terminate();
    }
  }

  /** FAULT_INJECTION (tests): the shard thread throws an uncaught exception and dies. */
  injectCrash(shard: number): void {
    this.workers[shard].postMessage([{ t: 'test_crash' }]);
  }

  shardOf(groupCode: string): number {
    return shardIndexOf(groupCode, this.workers.length);
  }

  send(shard: number, cmd: ShardCmd): void {
    this.pending[shard].push(cmd);
    this.schedule();
  }

  /** Queues an observer payload for its shard; false when it cannot be packed (a separator in it). */
  obs(groupCode: string, raw: string, now: number): boolean {
    if (raw.includes(RECORD_SEP) || raw.includes(FIELD_SEP) || groupCode.includes(RECORD_SEP) || groupCode.includes(FIELD_SEP)) return false;
    const queue = this.pending[this.shardOf(groupCode)];
    const record = groupCode + FIELD_SEP + now + FIELD_SEP + raw;
    const last = queue[queue.length - 1] as ObsBatchCmd | undefined;
    if (!last || last.t !== 'obs') queue.push({ t: 'obs', count: 1, packed: record });
    else {
      last.count++;
      last.packed += RECORD_SEP + record;
    }
    this.schedule();
    return true;
  }

  /** Queues an auxiliary payload for the matches `groupCodes` (those on `shard` with the session's match id). */
  aux(shard: number, groupCodes: string[], matchId: string, playerId: string, raw: string, now: number): void {
    const queue = this.pending[shard];
    let last = queue[queue.length - 1] as AuxBatchCmd | undefined;
    if (!last || last.t !== 'aux') queue.push((last = { t: 'aux', groupCodes: [], matchIds: [], playerIds: [], raws: [], nows: [] }));
    last.groupCodes.push(groupCodes);
    last.matchIds.push(matchId);
    last.playerIds.push(playerId);
    last.raws.push(raw);
    last.nows.push(now);
    this.schedule();
  }

  private queued = 0;

  /** One postMessage per shard per batch window: a message costs the same whether it carries one
   *  payload or fifty (docs/stack-notes.md 4), and the window is small next to the 100 ms frame interval. */
  private schedule(): void {
    if (++this.queued >= MAX_BATCH_COMMANDS) return this.flush();
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    if (this.options.batchMs > 0) setTimeout(this.flushNow, this.options.batchMs);
    else setImmediate(this.flushNow);
  }

  private readonly flushNow = (): void => this.flush();

  private flush(): void {
    this.flushScheduled = false;
    this.queued = 0;
    for (let i = 0; i < this.workers.length; i++) {
      const cmds = this.pending[i];
      if (cmds.length === 0) continue;
      this.pending[i] = [];
      const mark = ++this.mark;
      cmds.push({ t: 'mark', mark });
      this.retain(i, mark, cmds);
      this.workers[i].postMessage(cmds);
    }
  }

  private summariesWatched = false;

  /**
   * Dashboard summaries wanted or not (admin/dashboard.ts): the shards build none while nobody
   * watches. Turning them on resolves once every shard sent the summaries of its changed matches
   * (`summarized`), or after `timeoutMs`.
   */
  watchSummaries(on: boolean, timeoutMs: number): Promise<void> {
    this.summariesWatched = on;
    const answered = on ? this.everyShardSends('summarized', timeoutMs) : Promise.resolve();
    for (let i = 0; i < this.workers.length; i++) this.pending[i].push({ t: 'summaries', on });
    this.flush();
    return answered;
  }

  /**
   * The shutdown drain: each shard sends its pending frames and a snapshot of every match now; with
   * `endMatches`, it ends every match (a last frame) and removes it (backend completion when
   * registered). Resolves when every shard answered (`drained`) or after `timeoutMs`.
   */
  drain(endMatches: boolean, timeoutMs: number): Promise<void> {
    const answered = this.everyShardSends('drained', timeoutMs);
    for (let i = 0; i < this.workers.length; i++) this.pending[i].push({ t: 'drain', endMatches });
    this.flush();
    return answered;
  }

  /** Resolves once every shard sent an event of type `t`, or after `timeoutMs`. */
  private everyShardSends(t: 'summarized' | 'drained', timeoutMs: number): Promise<void> {
    return Promise.all(this.workers.map((worker) => new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void { clearTimeout(timer); worker.off('message', onMessage); resolve(); }
      function onMessage(out: ShardOut): void { if (out.events.some((e) => e.t === t)) done(); }
      worker.on('message', onMessage);
    }))).then(() => undefined);
  }

  /**
   * Ends every shard thread: the queued commands are posted, then `exit` (timers stopped, replay
   * files closed, the thread's port closed); a thread still running after EXIT_GRACE_MS is terminated.
   * Crashes are no longer recovered.
   */
  async terminate(): Promise<void> {
    clearInterval(this.watchdog);
    this.flush();
    this.stopping = true;
    for (const worker of this.workers) worker.postMessage([{ t: 'exit' }]);
    await Promise.all(this.workers.map((w) => new Promise<void>((resolve) => {
      const timer = setTimeout(() => { void w.terminate().then(() => resolve()); }, EXIT_GRACE_MS);
      w.once('exit', () => { clearTimeout(timer); resolve(); });
    })));
  }
}
