// Waiting on the shards' answers: the shutdown drain (`drained`) and the dashboard's first
// summaries (`summarized`).
import type { ShardOut } from '../../protocol/shard-messages.js';
import type { ShardThread } from './threads.js';

/** Resolves once every one of `threads` sent an event of type `t`, or after `timeoutMs`. */
export function everyShardSends(threads: readonly ShardThread[], t: 'summarized' | 'drained', timeoutMs: number): Promise<void> {
  return Promise.all(threads.map((thread) => new Promise<void>((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done(): void { clearTimeout(timer); thread.off('message', onMessage); resolve(); }
    function onMessage(out: ShardOut): void { if (out.events.some((e) => e.t === t)) done(); }
    thread.on('message', onMessage);
  }))).then(() => undefined);
}
