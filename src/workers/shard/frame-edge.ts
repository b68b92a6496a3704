// When a batch's frames go out (FRAME_EDGE, docs/benchmarks.md issue 28 "Step 6" and "Step 11").
// `leading` and `auto`: right after the batch (with `auto` the main thread holds a quiet service's
// messages for up to one interval and sends them as one batch: main/shards/batches.ts); `cycle`: only
// at the shard's cycle.
import type { ShardSettings } from '../../protocol/shard-settings.js';

export class FrameEdge {
  constructor(private readonly edge: ShardSettings['frameEdge']) {}

  /** Whether the batch just run sends its due frames now (else the cycle sends them). */
  afterBatch(): boolean {
    return this.edge !== 'cycle';
  }
}
