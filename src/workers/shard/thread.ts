// The shard thread's entry (the pool's WORKER_URL): a Shard wired to the thread's port (or, with
// SHARD_WORKERS=0, called on the main thread: startInlineShard), and the two
// loops that drive it, the batch loop (each batch of the main thread's commands) and the periodic
// tick (cycle.ts, every BROADCAST_INTERVAL_MS). The Shard holds the state, the rules (commands.ts,
// cycle.ts) take it as their narrow contexts (context.ts); neither imports the other, this file wires them.
import { parentPort, workerData } from 'node:worker_threads';
import type { ShardCmd, ShardOut } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import { runBatch } from './batch.js';
import { runCycle } from './cycle.js';
import { Shard } from './shard.js';
import { warmUp } from './warm-up.js';

/** (Exported for the benchmarks, which drive a Shard without a thread.) */
export { runBatch };

/** What the pool drives of a shard on the main thread (main/shards/inline-shard.ts InlineShard). */
export interface InlineShardHandle {
  post(cmds: ShardCmd[]): void;
  stop(): void;
}

/**
 * One shard on the main thread (SHARD_WORKERS=0; the pool loads this module by its URL, as it starts
 * a Worker on it): the same Shard, batch loop and tick, called directly instead of through a port.
 * `post` runs a batch at once; the outputs are handed to `onOutput` in a microtask (as a thread's
 * arrive later), their events copied (effects hold live subtrees of the match's state).
 *
 * Crash isolation as a thread has it, for what a shard can throw: every entry into the shard (a
 * batch, the tick, the frame timer) runs in a guard; an exception stops this shard for good (no more
 * timers, nothing more runs, its matches' state is dropped) and `onFault` tells the pool, which
 * restarts it from the snapshots as it restarts a dead thread (main/shards/pool.ts recover).
 */
export function startInlineShard(settings: ShardSettings, onOutput: (out: ShardOut) => void, onFault: (err: Error) => void): InlineShardHandle {
  let failed = false;
  const guarded = (work: () => void): void => {
    if (failed) return;
    try {
      work();
    } catch (err) {
      failed = true;
      clearInterval(tick);
      try {
        shard.exit(); // its timers stop, its replay files close
      } catch { /* the shard is dropped either way */ }
      onFault(err instanceof Error ? err : new Error(String(err)));
    }
  };
  const shard = new Shard(settings, (out: ShardOut) => {
    if (out.events.length > 0) out.events = structuredClone(out.events);
    queueMicrotask(() => onOutput(out));
  }, guarded);
  const tick = setInterval(() => guarded(() => runCycle(shard)), settings.intervalMs);
  return {
    post(cmds) {
      if (shard.exited) return;
      guarded(() => runBatch(shard, cmds));
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
  // The warm-up is an optimization: a recording that cannot be read (a trimmed image) skips it.
  let warmed: { ms: number } | { error: string } | null = null;
  try {
    if (settings.warmUp) warmed = { ms: warmUp(settings) };
  } catch (err) {
    warmed = { error: (err as Error).message };
  }
  const shard = new Shard(settings, (out: ShardOut) => port.postMessage(out));
  // Out with the first cycle's output.
  if (warmed && 'ms' in warmed) shard.out.log('info', 'shard warmed up', { shard: settings.shard, ms: warmed.ms });
  else if (warmed) shard.out.log('warn', 'shard warm-up skipped', { shard: settings.shard, error: warmed.error });
  const tick = setInterval(() => runCycle(shard), settings.intervalMs);
  port.on('message', (cmds: ShardCmd[]) => {
    runBatch(shard, cmds);
    if (shard.exited) {
      clearInterval(tick); // the `exit` command: no more cycles
      port.close(); // the thread ends once its last output is posted
    }
  });
}
