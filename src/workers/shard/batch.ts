// One batch of the main thread's commands, run on a shard (the thread's loop, the inline shard, the
// warm-up and the benchmarks call it).
import type { ShardCmd } from '../../protocol/shard-messages.js';
import { InjectedFault, runCommand } from './commands.js';
import type { BatchContext } from './context.js';

/**
 * One batch from the main thread: its commands in order, then the frames due, in one output.
 */
export function runBatch(shard: BatchContext, cmds: ShardCmd[]): void {
  const now = Date.now();
  const last = cmds[cmds.length - 1];
  shard.batchMark = last !== undefined && last.t === 'mark' ? last.mark : Infinity; // a batch's mark is its last command
  for (const cmd of cmds) {
    try {
      runCommand(shard, cmd, now);
    } catch (err) {
      if (err instanceof InjectedFault) throw err;
      // The engine never throws by contract; this is the last guard so one match cannot stop the shard.
      shard.out.log('error', 'shard command failed', { cmd: cmd.t, error: (err as Error).message });
    }
  }
  // FRAME_EDGE: a batch's due frames go out right after it, except with `cycle` (then the cycle sends
  // them); with `auto` the main thread holds a quiet service's messages for the interval (main/shards/batches.ts).
  if (shard.settings.frameEdge !== 'cycle') shard.sendDueFrames(Date.now());
  shard.out.flush();
}
