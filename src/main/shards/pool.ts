// The shard pool: a fixed set of shard threads, hash(groupCode) % N (hash.ts), each started by
// threads.ts. Commands travel in batches (batches.ts); each batch ends with a mark and is retained
// until the shard's snapshots cover it (retained-log.ts), so a thread that dies is restarted and given
// back its matches and those batches; a thread that stops answering is ended (watchdog.ts).
import { EXIT_GRACE_MS } from '../../protocol/limits.js';
import type { ShardCmd, ShardOut } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import type { RecoveryMode } from '../base/events.js'; // the shardRestarted event's vocabulary, declared below this module
import type { Logger } from '../base/log.js';
import { ShardBatches } from './batches.js';
import { everyShardSends } from './drain-wait.js';
import { shardIndexOf } from './hash.js';
import { RetainedLog } from './retained-log.js';
import { startShardThread, type InlineShardStart, type ShardThread } from './threads.js';
import { StallWatchdog } from './watchdog.js';

export type { RecoveryMode };

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
  /** SHARD_WORKERS=0 (threads.ts loadInlineShard): one shard on the main thread; `count` is then 1. */
  inline?: InlineShardStart;
  /** Runs before any batch is posted: the input log writes what it was given (matches/input-log.ts), so no shard applies an input the log lacks. */
  beforePost?: () => void;
}

export class ShardPool {
  private readonly workers: ShardThread[] = [];
  private stopping = false;
  private readonly log: Logger;
  /** The last batch mark given out (marks grow across all shards). */
  private mark = 0;
  private readonly batches: ShardBatches;
  private readonly retained: RetainedLog;
  private readonly watchdog: StallWatchdog;
  private summariesWatched = false;

  constructor(private readonly options: ShardPoolOptions) {
    this.log = options.log.child({ module: 'shards' });
    this.batches = new ShardBatches(options.count, options.batchMs, (index, cmds) => this.post(index, cmds), options.settings.frameEdge === 'auto' ? options.settings.intervalMs : 0);
    this.retained = new RetainedLog(options.count, this.log);
    this.watchdog = new StallWatchdog(options.count, this.log, (index) => void this.workers[index].terminate());
    for (let i = 0; i < options.count; i++) this.workers.push(this.spawn(i, true));
  }

  get count(): number {
    return this.workers.length;
  }

  /** `first`: the pool's start (a restarted thread skips SHARD_WARMUP: its matches are waiting). */
  private spawn(index: number, first = false): ShardThread {
    const settings = { ...this.options.settings, shard: index, warmUp: first && this.options.settings.warmUp === true };
    const worker = startShardThread(settings, this.options.youngGenerationMb, this.options.inline);
    worker.on('message', (out: ShardOut) => {
      if (this.workers[index] !== worker) return; // a late message of a replaced thread
      this.watchdog.heard(index);
      this.retained.heard(index, out);
      this.options.onOutput(index, out);
    });
    worker.on('error', (err) => this.log.error({ shard: index, err: { message: err.message, stack: err.stack } }, 'shard worker error'));
    worker.on('exit', (code) => {
      if (this.stopping || this.workers[index] !== worker) return;
      this.recover(index, code);
    });
    return worker;
  }

  /** A dead shard thread: a new one, given back what it can be (retained-log.ts). */
  private recover(index: number, code: number): void {
    const now = Date.now();
    const { mode, crashesInWindow } = this.retained.crashed(index, now);
    this.log.error({ shard: index, code, mode, crashesInWindow }, 'shard worker exited; restarting it');
    const worker = this.spawn(index);
    this.workers[index] = worker;
    this.watchdog.heard(index, now);
    const restores = this.options.onCrash(index, mode);
    if (restores.length > 0) worker.postMessage(restores);
    if (this.summariesWatched) worker.postMessage([{ t: 'summaries', on: true }]);
    this.retained.replay(index, mode, worker);
  }

  /** A batch's window ended: it gets the next mark, is retained, and goes to its shard. */
  private post(index: number, cmds: ShardCmd[]): void {
    this.options.beforePost?.();
    const mark = ++this.mark;
    cmds.push({ t: 'mark', mark });
    this.retained.retain(index, mark, cmds);
    this.workers[index].postMessage(cmds);
  }

  /** FAULT_INJECTION (tests): the shard thread throws an uncaught exception and dies. */
  injectCrash(shard: number): void {
    this.workers[shard].postMessage([{ t: 'test_crash' }]);
  }

  shardOf(groupCode: string): number {
    return shardIndexOf(groupCode, this.workers.length);
  }

  send(shard: number, cmd: ShardCmd): void {
    this.batches.send(shard, cmd);
  }

  /** Queues an observer payload for its shard (`input`: its number in the match, matches/match-inputs.ts, 0: none; `via`: who forwarded it); false when it cannot be packed (a separator in it). */
  obs(groupCode: string, raw: string, now: number, input = 0, via = ''): boolean {
    return this.batches.obs(this.shardOf(groupCode), groupCode, raw, now, input, via);
  }

  /** Queues an auxiliary payload for the matches `groupCodes` (those on `shard` with the session's match id; `inputs`: its number in each). */
  aux(shard: number, groupCodes: string[], inputs: number[], matchId: string, playerId: string, raw: string, now: number, via = ''): void {
    this.batches.aux(shard, groupCodes, inputs, matchId, playerId, raw, now, via);
  }

  /**
   * Dashboard summaries wanted or not (admin/dashboard.ts): the shards build none while nobody
   * watches. Turning them on resolves once every shard sent the summaries of its changed matches
   * (`summarized`), or after `timeoutMs`.
   */
  watchSummaries(on: boolean, timeoutMs: number): Promise<void> {
    this.summariesWatched = on;
    const answered = on ? everyShardSends(this.workers, 'summarized', timeoutMs) : Promise.resolve();
    for (let i = 0; i < this.workers.length; i++) this.batches.queue(i, { t: 'summaries', on });
    this.batches.flush();
    return answered;
  }

  /**
   * The shutdown drain: each shard sends its pending frames and a snapshot of every match now; with
   * `endMatches`, it ends every match (a last frame) and removes it (backend completion when
   * registered). Resolves when every shard answered (`drained`) or after `timeoutMs`.
   */
  drain(endMatches: boolean, timeoutMs: number): Promise<void> {
    const answered = everyShardSends(this.workers, 'drained', timeoutMs);
    for (let i = 0; i < this.workers.length; i++) this.batches.queue(i, { t: 'drain', endMatches });
    this.batches.flush();
    return answered;
  }

  /**
   * Ends every shard thread: the queued commands are posted, then `exit` (timers stopped, replay
   * files closed, the thread's port closed); a thread still running after EXIT_GRACE_MS is terminated.
   * Crashes are no longer recovered.
   */
  async terminate(): Promise<void> {
    this.watchdog.stop();
    this.batches.flush();
    this.stopping = true;
    for (const worker of this.workers) worker.postMessage([{ t: 'exit' }]);
    await Promise.all(this.workers.map((w) => new Promise<void>((resolve) => {
      const timer = setTimeout(() => { void w.terminate().then(() => resolve()); }, EXIT_GRACE_MS);
      w.once('exit', () => { clearTimeout(timer); resolve(); });
    })));
  }
}
