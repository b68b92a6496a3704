// Commands to the shards, batched: queued per shard and posted as one array per batch window
// (`batchMs`, or at once past MAX_BATCH_COMMANDS); the observer payloads of a batch travel packed
// into one string inside one `obs` command, the auxiliary ones in the columns of one `aux` command.
//
// FRAME_EDGE=auto (`quietMs`: the broadcast interval): while the service is quiet (fewer than
// AUTO_EDGE_BUSY observer and auxiliary messages in the current and the previous interval), their
// window ends at the interval's end (wall-clock multiples of `quietMs`) instead of after `batchMs`,
// and the shard sends a batch's frames right after it: one hand-off and one wake of each thread per
// interval instead of one per message, for the wait a frame had at the shard's cycle
// (docs/benchmarks.md, issue 28 "Step 11": −4 to −24 % CPU per frame at 50 matches, ~18 % at the median). Busy, a batch
// window is `batchMs` again (its hand-off is shared already), unless the matches send faster than
// their frames can go (FRAMES_WAIT_RATIO): then a frame waits for the interval's end anyway (one per
// match per interval, workers/shard/frame-pacer.ts) and so may the messages, at no cost in latency
// (docs/perf/message-path.md, "Frames that wait anyway").
import { MAX_BATCH_COMMANDS } from '../../protocol/limits.js';
import { FIELD_SEP, packObsRecord, RECORD_SEP, type AuxBatchCmd, type ObsBatchCmd, type ShardCmd } from '../../protocol/shard-messages.js';

/** FRAME_EDGE=auto: messages per interval (100 ms) from which the service counts as busy: 500 a second, ~170 matches at game pace. */
export const AUTO_EDGE_BUSY = 50;

/**
 * FRAME_EDGE=auto: observer messages per sending match in an interval from which the messages wait
 * for the interval's end however many there are, once every interval of the last second had that
 * many and from nearly every match that sends at all (FRAMES_WAIT_SENDING): a sustained rate of 15
 * messages a second a match or more. Then a match's second message in an interval could not have its
 * frame before the next interval anyway: measured at 50 matches and 20 messages a second each, 21 %
 * less CPU per frame for the same p50 and p99; at 10 a second (one an interval) the wait
 * would add ~30 ms to p50, so a match sending once an interval keeps the leading edge. So does game
 * pace, whose matches send in bursts (a kill, a buy phase: many rows at once) and then little for a
 * while: holding for a burst's intervals cost its first frames their leading edge (the recorded match
 * at 500 matches, 3 a second, whose bursts the benchmark plays within a second of each other:
 * p50 35 → 58–71 ms). Never past FRAMES_WAIT_MAX messages an interval.
 */
export const FRAMES_WAIT_RATIO = 1.5;

/**
 * Observer and auxiliary messages per interval from which messages are not held whatever their rate:
 * a held interval is one batch, and a large one is made at once and then fanned out at once (the
 * recorded match at 500 matches, 3 a second, whose bursts the benchmark plays within a second of
 * each other, puts up to 2,800 messages into one interval at a round's start: bench/held-intervals.ts;
 * a run without the cap read p95 180 ms against 89, one bench/broadcast.ts run each).
 */
export const FRAMES_WAIT_MAX = 200;

/** The share of the matches that sent in the last FRAMES_WAIT_WINDOW intervals that must have sent in the previous one. */
export const FRAMES_WAIT_SENDING = 0.75;

/** The intervals (a second) over which a match that sent an observer message counts as sending, and the rate must hold. */
export const FRAMES_WAIT_WINDOW = 10;

/** Whether an observer payload and its code can travel packed (neither separator in them: never in valid JSON text). */
const packable = (groupCode: string, raw: string): boolean =>
  !raw.includes(RECORD_SEP) && !raw.includes(FIELD_SEP) && !groupCode.includes(RECORD_SEP) && !groupCode.includes(FIELD_SEP);

export class ShardBatches {
  private readonly pending: ShardCmd[][] = [];
  private flushScheduled = false;
  /** The pending flush's timer when it waits for a quiet window (so that turning busy can cut it short). */
  private quietTimer: ReturnType<typeof setTimeout> | undefined;
  private queued = 0;
  /** Observer and auxiliary messages in the current interval (numbered `interval`) and the previous one. */
  private interval = 0;
  private current = 0;
  private previous = 0;
  /** Observer messages in the current interval, and how many matches sent them. */
  private obsNow = 0;
  private sendingNow = 0;
  /** The matches that sent observer messages lately: group code → the last interval it sent in (swept every FRAMES_WAIT_WINDOW intervals). */
  private readonly sentIn = new Map<string, number>();
  private sweptAt = 0;
  /** The intervals in a row (to the previous one) whose observer messages came at FRAMES_WAIT_RATIO a match or more, from nearly every match that sends. */
  private fastIntervals = 0;

  /**
   * `post`: a shard's batch, when its window ends (the pool marks, retains and posts it). `quietMs`:
   * the quiet window of FRAME_EDGE=auto (0: none, every window is `batchMs`).
   */
  constructor(count: number, private readonly batchMs: number, private readonly post: (shard: number, cmds: ShardCmd[]) => void, private readonly quietMs = 0) {
    for (let i = 0; i < count; i++) this.pending.push([]);
  }

  send(shard: number, cmd: ShardCmd): void {
    this.pending[shard].push(cmd);
    this.schedule(false);
  }

  /** Queues `cmd` without scheduling a flush (the caller flushes). */
  queue(shard: number, cmd: ShardCmd): void {
    this.pending[shard].push(cmd);
  }

  /** Queues an observer payload for `shard` (`input`: its number in the match, 0: none; `via`: who forwarded it); false when it cannot be packed (a separator in it). */
  obs(shard: number, groupCode: string, raw: string, now: number, input = 0, via = ''): boolean {
    if (!packable(groupCode, raw) || !packable(via, '')) return false;
    const queue = this.pending[shard];
    const record = packObsRecord(groupCode, now, input, via, raw);
    const last = queue[queue.length - 1] as ObsBatchCmd | undefined;
    if (!last || last.t !== 'obs') queue.push({ t: 'obs', count: 1, packed: record });
    else {
      last.count++;
      last.packed += RECORD_SEP + record;
    }
    this.schedule(this.quietAt(now, groupCode), now);
    return true;
  }

  /** Queues an auxiliary payload for the matches `groupCodes` (those on `shard` with the session's match id; `inputs`: its number in each). */
  aux(shard: number, groupCodes: string[], inputs: number[], matchId: string, playerId: string, raw: string, now: number, via = ''): void {
    const queue = this.pending[shard];
    let last = queue[queue.length - 1] as AuxBatchCmd | undefined;
    if (!last || last.t !== 'aux') queue.push((last = { t: 'aux', groupCodes: [], inputs: [], vias: [], matchIds: [], playerIds: [], raws: [], nows: [] }));
    last.groupCodes.push(groupCodes);
    last.inputs.push(inputs);
    last.vias.push(via);
    last.matchIds.push(matchId);
    last.playerIds.push(playerId);
    last.raws.push(raw);
    last.nows.push(now);
    this.schedule(this.quietAt(now), now);
  }

  /**
   * Counts a message received at `now` (epoch ms; `groupCode`: an observer message's match); whether
   * it may wait for the quiet window: the service is quiet, or its matches send faster than frames go.
   */
  private quietAt(now: number, groupCode?: string): boolean {
    if (this.quietMs <= 0) return false;
    const interval = Math.floor(now / this.quietMs);
    if (interval > this.interval) { // an older `now` (a standby relay's held message) counts in the current one
      const next = interval === this.interval + 1;
      this.previous = next ? this.current : 0;
      if (interval - this.sweptAt >= FRAMES_WAIT_WINDOW) {
        for (const [code, at] of this.sentIn) if (at <= interval - FRAMES_WAIT_WINDOW) this.sentIn.delete(code);
        this.sweptAt = interval;
      }
      const sending = this.sendingNow;
      const fast = next && sending > 0 && this.obsNow >= FRAMES_WAIT_RATIO * sending && sending >= FRAMES_WAIT_SENDING * this.sentIn.size;
      this.fastIntervals = fast ? this.fastIntervals + 1 : 0;
      this.current = 0;
      this.obsNow = 0;
      this.sendingNow = 0;
      this.interval = interval;
    }
    this.current++;
    if (groupCode !== undefined) {
      this.obsNow++;
      // Its first message of the interval counts it as sending now (one map lookup a message).
      if (this.sentIn.get(groupCode) !== this.interval) {
        this.sendingNow++;
        this.sentIn.set(groupCode, this.interval);
      }
    }
    const load = Math.max(this.current, this.previous);
    return load < AUTO_EDGE_BUSY || (this.fastIntervals >= FRAMES_WAIT_WINDOW && load < FRAMES_WAIT_MAX);
  }

  /** One postMessage per shard per batch window: a message costs the same whether it carries one
   *  payload or fifty (docs/stack-notes.md 4), and the window is small next to the 100 ms frame
   *  interval; `quiet`: this command may wait for the quiet window (other commands never do), which
   *  ends at the next multiple of `quietMs` after `now`: up to one interval, half of one on average. */
  private schedule(quiet: boolean, now = 0): void {
    if (++this.queued >= MAX_BATCH_COMMANDS) return this.flush();
    if (this.flushScheduled) {
      if (quiet || this.quietTimer === undefined) return;
      clearTimeout(this.quietTimer); // busy now, or a command that does not wait: the short window
      this.quietTimer = undefined;
    }
    this.flushScheduled = true;
    if (quiet) this.quietTimer = setTimeout(this.flushNow, this.quietMs - (now % this.quietMs));
    else if (this.batchMs > 0) setTimeout(this.flushNow, this.batchMs);
    else setImmediate(this.flushNow);
  }

  private readonly flushNow = (): void => this.flush();

  /** Every shard's queued commands, posted now. */
  flush(): void {
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    this.flushScheduled = false;
    this.queued = 0;
    for (let i = 0; i < this.pending.length; i++) {
      const cmds = this.pending[i];
      if (cmds.length === 0) continue;
      this.pending[i] = [];
      this.post(i, cmds);
    }
  }
}
