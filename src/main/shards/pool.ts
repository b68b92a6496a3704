// The shard pool: a fixed set of worker threads, hash(groupCode) % N. Commands to a shard are
// queued and posted once per event-loop turn as one array; observer payloads of a turn travel as
// parallel string arrays inside one command.
//
// Crash recovery: every batch ends with a `mark`; batches are retained here until a snapshot round
// of the shard covers them (ShardOut.snapshots.seq). When a shard thread dies, a new one gets the
// matches' latest snapshots (restore commands from the hub), then the retained batches again: those
// the old thread had already acknowledged (ShardOut.ack) muted, the others as new. A thread that
// dies again within CRASH_WINDOW_MS gets the snapshots only, a third time nothing (docs/reliability.md).
import { Worker } from 'node:worker_threads';
import { FIELD_SEP, RECORD_SEP, type AuxBatchCmd, type ObsBatchCmd, type ShardCmd, type ShardOut } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../workers/shard.js';
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

const WORKER_URL = new URL('../../workers/shard.js', import.meta.url);
/** A batch this large is posted at once rather than at the end of the window. */
const MAX_BATCH = 512;
/** Payloads retained per shard before the log is given up (a shard that stopped snapshotting). */
const MAX_RETAINED = 200_000;
const CRASH_WINDOW_MS = 30_000;
/** A shard silent this long (it sends stats every second) is considered hung and restarted. */
const STALL_MS = 15_000;

/** What a restarted shard can be given: snapshots and the retained batches, snapshots only, nothing. */
export type RecoveryMode = 'full' | 'snapshots' | 'none';

interface Retained { seq: number; cmds: ShardCmd[]; size: number }

/** Commands worth re-applying after a crash. */
const replayable = (c: ShardCmd): boolean => c.t !== 'test_crash' && c.t !== 'final' && c.t !== 'stop' && c.t !== 'mute';

export interface ShardPoolOptions {
  count: number;
  /** Commands wait up to this long to travel in one postMessage (0: the next event-loop turn). */
  batchMs: number;
  settings: Omit<ShardSettings, 'shard'>;
  log: Logger;
  onOutput(shard: number, out: ShardOut): void;
  /** A shard thread died: the restore commands for its matches (none with mode 'none'). */
  onCrash(shard: number, mode: RecoveryMode): ShardCmd[];
}

export class ShardPool {
  private readonly workers: Worker[] = [];
  private readonly pending: ShardCmd[][] = [];
  private flushScheduled = false;
  private stopping = false;
  private readonly log: Logger;
  private seq = 0;
  private readonly retained: Retained[][] = [];
  private readonly retainedSize: number[] = [];
  /** Per shard: the last mark acknowledged, crash times, whether the retained log is complete, last output time. */
  private readonly acked: number[] = [];
  private readonly crashes: number[][] = [];
  private readonly logBrokenUpTo: number[] = [];
  private readonly lastHeard: number[] = [];
  private readonly watchdog: NodeJS.Timeout;
  /** Restarts so far (metrics). */
  restarts = 0;

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
    this.watchdog = setInterval(() => this.checkStalls(), STALL_MS / 3);
    this.watchdog.unref();
  }

  get count(): number {
    return this.workers.length;
  }

  private spawn(index: number): Worker {
    const worker = new Worker(WORKER_URL, { workerData: { ...this.options.settings, shard: index } satisfies ShardSettings });
    worker.on('message', (out: ShardOut) => {
      if (this.workers[index] !== worker) return; // a late message of a replaced thread
      this.lastHeard[index] = Date.now();
      if (out.ack !== undefined) this.acked[index] = out.ack;
      if (out.snapshots) this.trim(index, out.snapshots.seq);
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
    const mode: RecoveryMode = recent.length >= 3 ? 'none' : recent.length === 2 || !logComplete ? 'snapshots' : 'full';
    this.restarts++;
    this.log.error({ shard: index, code, mode, crashesInWindow: recent.length }, 'shard worker exited; restarting it');
    const worker = this.spawn(index);
    this.workers[index] = worker;
    this.lastHeard[index] = now;
    const restores = this.options.onCrash(index, mode);
    if (restores.length > 0) worker.postMessage(restores);
    const batches = mode === 'full' ? this.retained[index] : [];
    if (mode !== 'full') { this.retained[index] = []; this.retainedSize[index] = 0; this.logBrokenUpTo[index] = 0; }
    let muted = false;
    for (const batch of batches) {
      const mute = batch.seq <= this.acked[index];
      if (mute !== muted) { worker.postMessage([{ t: 'mute', on: mute }]); muted = mute; }
      worker.postMessage(batch.cmds);
    }
    if (muted) worker.postMessage([{ t: 'mute', on: false }]);
    if (batches.length > 0) this.log.warn({ shard: index, batches: batches.length, acknowledged: batches.filter((b) => b.seq <= this.acked[index]).length }, 'shard restarted: batches since its last snapshot applied again');
  }

  /** Batches up to `seq` are in the shard's snapshots: forget them. */
  private trim(index: number, seq: number): void {
    const list = this.retained[index];
    let n = 0;
    let size = this.retainedSize[index];
    while (n < list.length && list[n].seq <= seq) size -= list[n++].size;
    if (n > 0) list.splice(0, n);
    this.retainedSize[index] = size;
    if (this.logBrokenUpTo[index] !== 0 && seq >= this.logBrokenUpTo[index]) this.logBrokenUpTo[index] = 0;
  }

  private retain(index: number, seq: number, cmds: ShardCmd[]): void {
    let size = 0;
    for (const c of cmds) size += c.t === 'obs' ? c.count : c.t === 'aux' ? c.raws.length : 1;
    this.retained[index].push({ seq, cmds: cmds.some((c) => !replayable(c)) ? cmds.filter(replayable) : cmds, size });
    this.retainedSize[index] += size;
    if (this.retainedSize[index] > MAX_RETAINED) {
      // The shard has not snapshotted for a long time: a crash now falls back to its snapshots.
      this.log.warn({ shard: index, retained: this.retainedSize[index] }, 'shard log too long: given up until the next snapshot round');
      this.retained[index] = [];
      this.retainedSize[index] = 0;
      this.logBrokenUpTo[index] = seq;
    }
  }

  /** A thread that stopped answering (stats come every second) is ended; its exit restarts it. */
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

  sendToAll(cmd: ShardCmd): void {
    for (let i = 0; i < this.workers.length; i++) this.send(i, cmd);
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

  aux(shard: number, matchId: string, playerId: string, raw: string, now: number): void {
    const queue = this.pending[shard];
    let last = queue[queue.length - 1] as AuxBatchCmd | undefined;
    if (!last || last.t !== 'aux') queue.push((last = { t: 'aux', matchIds: [], playerIds: [], raws: [], nows: [] }));
    last.matchIds.push(matchId);
    last.playerIds.push(playerId);
    last.raws.push(raw);
    last.nows.push(now);
    this.schedule();
  }

  private queued = 0;

  /** One postMessage per shard per batch window: a message costs the same whether it carries one
   *  payload or fifty (stack.md), and the window is small next to the 100 ms frame interval. */
  private schedule(): void {
    if (++this.queued >= MAX_BATCH) return this.flush();
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    if (this.options.batchMs > 0) setTimeout(() => this.flush(), this.options.batchMs);
    else setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    this.queued = 0;
    for (let i = 0; i < this.workers.length; i++) {
      const cmds = this.pending[i];
      if (cmds.length === 0) continue;
      this.pending[i] = [];
      const seq = ++this.seq;
      cmds.push({ t: 'mark', seq });
      this.retain(i, seq, cmds);
      this.workers[i].postMessage(cmds);
    }
  }

  /**
   * Shutdown: each shard sends its pending frames and a snapshot of every match now; with
   * `complete`, it then removes every match (backend completion when registered). Resolves when
   * every shard answered or after `timeoutMs`.
   */
  final(complete: boolean, timeoutMs: number): Promise<void> {
    const waits = this.workers.map((worker) => new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void { clearTimeout(timer); worker.off('message', onMessage); resolve(); }
      function onMessage(out: ShardOut): void { if (out.events.some((e) => e.t === 'final_done')) done(); }
      worker.on('message', onMessage);
    }));
    for (let i = 0; i < this.workers.length; i++) this.pending[i].push({ t: 'final', complete });
    this.flush();
    return Promise.all(waits).then(() => undefined);
  }

  async close(): Promise<void> {
    clearInterval(this.watchdog);
    this.flush();
    this.stopping = true;
    for (const worker of this.workers) worker.postMessage([{ t: 'stop' }]);
    await Promise.all(this.workers.map((w) => new Promise<void>((resolve) => {
      const timer = setTimeout(() => { void w.terminate().then(() => resolve()); }, 2000);
      w.once('exit', () => { clearTimeout(timer); resolve(); });
    })));
  }
}
