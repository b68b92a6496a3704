// Starting a shard thread: a Worker on the shard thread module (dist/workers/shard/thread.js), or
// with SHARD_WORKERS=0 that module's shard on the main thread (inline-shard.ts). The pool sees both
// as a ShardThread.
import { Worker } from 'node:worker_threads';
import type { ShardCmd } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import { InlineShard, type InlineShardStart } from './inline-shard.js';

export type { InlineShardStart };

const WORKER_URL = new URL('../../workers/shard/thread.js', import.meta.url);

/**
 * SHARD_WORKERS=0: the shard module loaded on the main thread, by the URL a Worker would be started
 * on (main/ imports nothing of workers/; this is the same reference the Worker takes).
 */
export async function loadInlineShard(): Promise<InlineShardStart> {
  return ((await import(WORKER_URL.href)) as { startInlineShard: InlineShardStart }).startInlineShard;
}

/** What the pool uses of a shard's Worker. */
type Listener = (...args: any[]) => void; // eslint-disable-line @typescript-eslint/no-explicit-any -- node's listener type
export interface ShardThread {
  postMessage(cmds: ShardCmd[]): void;
  on(event: string, listener: Listener): unknown;
  once(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
  terminate(): Promise<number>;
}

/** A new shard thread; `youngGenerationMb` (SHARD_YOUNG_GENERATION_MB, 0: V8's default) sizes a Worker's young generation. */
export function startShardThread(settings: ShardSettings, youngGenerationMb: number | undefined, inline: InlineShardStart | undefined): ShardThread {
  if (inline) return new InlineShard(inline, settings);
  const young = youngGenerationMb ? { resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb } } : {};
  return new Worker(WORKER_URL, { workerData: settings, ...young });
}
