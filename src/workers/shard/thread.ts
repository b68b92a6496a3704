// The shard thread's entry (the pool's WORKER_URL): a Shard wired to the thread's port, and the two
// loops that drive it, the batch loop (each batch of the main thread's commands) and the periodic
// tick (cycle.ts, every BROADCAST_INTERVAL_MS). The Shard holds the state, the rules (commands.ts,
// cycle.ts) take it as their context (context.ts); neither imports the other, this file wires them.
import { parentPort, workerData } from 'node:worker_threads';
import type { ShardCmd, ShardOut } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import { runCommand } from './commands.js';
import type { ShardContext } from './context.js';
import { runCycle } from './cycle.js';
import { Shard } from './shard.js';

/**
 * One batch from the main thread: its commands in order, then the frames due, in one output.
 * (Exported for the benchmarks, which drive a Shard without a thread.)
 */
export function runBatch(shard: ShardContext, cmds: ShardCmd[]): void {
  const now = Date.now();
  for (const cmd of cmds) {
    try {
      runCommand(shard, cmd, now);
    } catch (err) {
      // The engine never throws by contract; this is the last guard so one match cannot stop the shard.
      shard.out.log('error', 'shard command failed', { cmd: cmd.t, error: (err as Error).message });
    }
  }
  shard.sendDueFrames(Date.now());
  shard.out.flush();
}

if (parentPort) {
  const port = parentPort;
  const settings = workerData as ShardSettings;
  const shard = new Shard(settings, (out: ShardOut) => port.postMessage(out));
  const tick = setInterval(() => runCycle(shard), settings.intervalMs);
  port.on('message', (cmds: ShardCmd[]) => {
    runBatch(shard, cmds);
    if (shard.exited) {
      clearInterval(tick); // the `exit` command: no more cycles
      port.close(); // the thread ends once its last output is posted
    }
  });
}
