// The shard thread's entry (the pool's WORKER_URL): a Shard wired to the thread's port (or, with
// SHARD_WORKERS=0, called on the main thread: startInlineShard), and the two
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

/**
 * One shard on the main thread (SHARD_WORKERS=0; the pool loads this module by its URL, as it starts
 * a Worker on it): the same Shard, batch loop and tick, called directly instead of through a port.
 * `post` runs a batch at once; the outputs are handed to `onOutput` in a microtask (as a thread's
 * arrive later), their events copied (effects hold live subtrees of the match's state).
 */
export function startInlineShard(settings: ShardSettings, onOutput: (out: ShardOut) => void): { post(cmds: ShardCmd[]): void; stop(): void } {
  const shard = new Shard(settings, (out: ShardOut) => {
    if (out.events.length > 0) out.events = structuredClone(out.events);
    queueMicrotask(() => onOutput(out));
  });
  const tick = setInterval(() => runCycle(shard), settings.intervalMs);
  return {
    post(cmds) {
      if (shard.exited) return;
      runBatch(shard, cmds);
      if (shard.exited) clearInterval(tick);
    },
    stop() {
      clearInterval(tick);
      if (!shard.exited) shard.exit();
    },
  };
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
