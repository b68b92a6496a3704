// Crash recovery's log. Every batch ends with a `mark`; batches are retained here until a snapshot
// round of the shard covers them (ShardOut.snapshots.mark). When a shard thread dies, a new one gets
// the matches' latest snapshots (restore commands from matches/shard-recovery.ts, posted by the pool), then
// the retained batches again: those the old thread had already acknowledged (ShardOut.ack) muted, the
// others as new. A thread that dies again within CRASH_WINDOW_MS gets the snapshots only, a third time
// nothing (docs/reliability.md).
import { CRASH_WINDOW_MS, CRASHES_GIVE_UP, CRASHES_SNAPSHOTS_ONLY, MAX_RETAINED_PAYLOADS } from '../../protocol/limits.js';
import type { ShardCmd, ShardOut } from '../../protocol/shard-messages.js';
import type { RecoveryMode } from '../base/events.js'; // the shardRestarted event's vocabulary, declared below this module
import type { Logger } from '../base/log.js';

/** A batch kept for replay after a crash: its mark, its commands, its payload count. */
interface Retained { mark: number; cmds: ShardCmd[]; size: number }

/** Commands worth re-applying after a crash. */
const replayable = (c: ShardCmd): boolean => c.t !== 'test_crash' && c.t !== 'drain' && c.t !== 'exit' && c.t !== 'mute' && c.t !== 'summaries';

export class RetainedLog {
  private readonly retained: Retained[][] = [];
  private readonly retainedSize: number[] = [];
  /** Per shard: the last mark acknowledged, crash times, whether the retained log is complete. */
  private readonly acked: number[] = [];
  private readonly crashes: number[][] = [];
  private readonly logBrokenUpTo: number[] = [];

  constructor(count: number, private readonly log: Logger) {
    for (let i = 0; i < count; i++) {
      this.retained.push([]);
      this.retainedSize.push(0);
      this.acked.push(0);
      this.crashes.push([]);
      this.logBrokenUpTo.push(0);
    }
  }

  /** A shard's output: the last batch it acknowledged, and the batches its snapshot round covers. */
  heard(index: number, out: ShardOut): void {
    if (out.ack !== undefined) this.acked[index] = out.ack;
    if (out.snapshots) this.trim(index, out.snapshots.mark);
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

  /** A batch posted to shard `index`, ending with `mark`. */
  retain(index: number, mark: number, cmds: ShardCmd[]): void {
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

  /** Shard `index` died at `now`: what its new thread can be given (see the top of this file). */
  crashed(index: number, now: number): { mode: RecoveryMode; crashesInWindow: number } {
    const recent = this.crashes[index].filter((t) => now - t < CRASH_WINDOW_MS);
    recent.push(now);
    this.crashes[index] = recent;
    const logComplete = this.logBrokenUpTo[index] === 0;
    const mode: RecoveryMode = recent.length >= CRASHES_GIVE_UP ? 'none' : recent.length >= CRASHES_SNAPSHOTS_ONLY || !logComplete ? 'snapshots' : 'full';
    return { mode, crashesInWindow: recent.length };
  }

  /** The retained batches again to shard `index`'s new thread (mode 'full'), acknowledged ones muted; otherwise the log starts over. */
  replay(index: number, mode: RecoveryMode, thread: { postMessage(cmds: ShardCmd[]): void }): void {
    const batches = mode === 'full' ? this.retained[index] : [];
    if (mode !== 'full') { this.retained[index] = []; this.retainedSize[index] = 0; this.logBrokenUpTo[index] = 0; }
    let muted = false;
    for (const batch of batches) {
      const mute = batch.mark <= this.acked[index];
      if (mute !== muted) { thread.postMessage([{ t: 'mute', on: mute }]); muted = mute; }
      thread.postMessage(batch.cmds);
    }
    if (muted) thread.postMessage([{ t: 'mute', on: false }]);
    if (batches.length > 0) this.log.warn({ shard: index, batches: batches.length, acknowledged: batches.filter((b) => b.mark <= this.acked[index]).length }, 'shard restarted: batches since its last snapshot applied again');
  }
}
