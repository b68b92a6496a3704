// When a batch's frames go out (FRAME_EDGE, docs/benchmarks.md issue 28 "Step 6"). `leading`: after
// every batch; `cycle`: only at the shard's cycle; `auto`: after a batch while the shard is busy (at
// least AUTO_EDGE_BUSY observer and auxiliary messages in the current or the previous cycle), else
// at the cycle. A quiet shard (a few dozen matches at game pace) then posts and wakes the main
// thread ~10 times a second instead of once per message (−19 to −37 % CPU per frame at M=50, p99
// ~110 ms); a busy one keeps the leading edge, where the hand-off is shared by several matches
// already and frames made all at the cycle come in bursts (p99 worse at M=1,000).
import type { ShardCmd } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';

/** FRAME_EDGE=auto: messages per cycle (100 ms) from which the shard counts as busy: 500 a second, ~170 matches at game pace. */
export const AUTO_EDGE_BUSY = 50;

export class FrameEdge {
  private current = 0;
  private previous = 0;

  constructor(private readonly edge: ShardSettings['frameEdge']) {}

  /** Whether the batch just run sends its due frames now (counts its messages for `auto`). */
  afterBatch(cmds: readonly ShardCmd[]): boolean {
    if (this.edge === 'cycle') return false;
    if (this.edge !== 'auto') return true;
    for (const cmd of cmds) {
      if (cmd.t === 'obs') this.current += cmd.count; // packed: one command carries the batch's observer messages
      else if (cmd.t === 'aux') this.current += cmd.raws.length;
    }
    return Math.max(this.current, this.previous) >= AUTO_EDGE_BUSY;
  }

  /** The shard's cycle: a new counting window. */
  cycle(): void {
    this.previous = this.current;
    this.current = 0;
  }
}
