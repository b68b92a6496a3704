// SHARD_WORKERS=0: the one shard on the main thread, behind a Worker's face (threads.ts starts it).
import { EventEmitter } from 'node:events';
import type { ShardCmd, ShardOut } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';

/** The shard thread module's startInlineShard (workers/shard/thread.ts), for SHARD_WORKERS=0. */
export type InlineShardStart = (settings: ShardSettings, onOutput: (out: ShardOut) => void, onFault: (err: Error) => void) => { post(cmds: ShardCmd[]): void; stop(): void };

/**
 * The one shard on the main thread, behind a Worker's face: commands run when posted, outputs
 * arrive as `message` events. No thread, so no hand-offs (docs/benchmarks.md). An exception in the
 * shard is what a thread's death is: `error`, then `exit` with code 1, and the pool restarts it.
 */
export class InlineShard extends EventEmitter {
  private readonly shard: ReturnType<InlineShardStart>;
  constructor(start: InlineShardStart, settings: ShardSettings) {
    super();
    this.shard = start(settings, (out) => this.emit('message', out), (err) => {
      this.emit('error', err);
      queueMicrotask(() => this.emit('exit', 1)); // after the outputs it made before failing
    });
  }
  postMessage(cmds: ShardCmd[]): void {
    this.shard.post(cmds);
  }
  terminate(): Promise<number> {
    this.shard.stop();
    queueMicrotask(() => this.emit('exit', 0));
    return Promise.resolve(0);
  }
}
