// Commands to the shards, batched: queued per shard and posted as one array per batch window
// (`batchMs`, or at once past MAX_BATCH_COMMANDS); the observer payloads of a batch travel packed
// into one string inside one `obs` command, the auxiliary ones in the columns of one `aux` command.
import { MAX_BATCH_COMMANDS } from '../../protocol/limits.js';
import { FIELD_SEP, RECORD_SEP, type AuxBatchCmd, type ObsBatchCmd, type ShardCmd } from '../../protocol/shard-messages.js';

export class ShardBatches {
  private readonly pending: ShardCmd[][] = [];
  private flushScheduled = false;
  private queued = 0;

  /** `post`: a shard's batch, when its window ends (the pool marks, retains and posts it). */
  constructor(count: number, private readonly batchMs: number, private readonly post: (shard: number, cmds: ShardCmd[]) => void) {
    for (let i = 0; i < count; i++) this.pending.push([]);
  }

  send(shard: number, cmd: ShardCmd): void {
    this.pending[shard].push(cmd);
    this.schedule();
  }

  /** Queues `cmd` without scheduling a flush (the caller flushes). */
  queue(shard: number, cmd: ShardCmd): void {
    this.pending[shard].push(cmd);
  }

  /** Queues an observer payload for `shard`; false when it cannot be packed (a separator in it). */
  obs(shard: number, groupCode: string, raw: string, now: number): boolean {
    if (raw.includes(RECORD_SEP) || raw.includes(FIELD_SEP) || groupCode.includes(RECORD_SEP) || groupCode.includes(FIELD_SEP)) return false;
    const queue = this.pending[shard];
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

  /** One postMessage per shard per batch window: a message costs the same whether it carries one
   *  payload or fifty (docs/stack-notes.md 4), and the window is small next to the 100 ms frame interval. */
  private schedule(): void {
    if (++this.queued >= MAX_BATCH_COMMANDS) return this.flush();
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    if (this.batchMs > 0) setTimeout(this.flushNow, this.batchMs);
    else setImmediate(this.flushNow);
  }

  private readonly flushNow = (): void => this.flush();

  /** Every shard's queued commands, posted now. */
  flush(): void {
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
