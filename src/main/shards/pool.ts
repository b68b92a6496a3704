// The shard pool: a fixed set of worker threads, hash(groupCode) % N. Commands to a shard are
// queued and posted once per event-loop turn as one array; observer payloads of a turn travel as
// parallel string arrays inside one command.
import { Worker } from 'node:worker_threads';
import type { AuxBatchCmd, ObsBatchCmd, ShardCmd, ShardOut } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../workers/shard.js';
import type { Logger } from '../log.js';

/** FNV-1a: cheap, stable across processes and restarts. */
export function shardIndexOf(groupCode: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < groupCode.length; i++) {
    h ^= groupCode.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

const WORKER_URL = new URL('../../workers/shard.js', import.meta.url);
/** A batch this large is posted at once rather than at the end of the window. */
const MAX_BATCH = 512;

export interface ShardPoolOptions {
  count: number;
  /** Commands wait up to this long to travel in one postMessage (0: the next event-loop turn). */
  batchMs: number;
  settings: Omit<ShardSettings, 'shard'>;
  log: Logger;
  onOutput(shard: number, out: ShardOut): void;
  /** A shard thread died; its matches are gone. */
  onCrash(shard: number): void;
}

export class ShardPool {
  private readonly workers: Worker[] = [];
  private readonly pending: ShardCmd[][] = [];
  private flushScheduled = false;
  private stopping = false;
  private readonly log: Logger;

  constructor(private readonly options: ShardPoolOptions) {
    this.log = options.log.child({ module: 'shards' });
    for (let i = 0; i < options.count; i++) {
      this.pending.push([]);
      this.workers.push(this.spawn(i));
    }
  }

  get count(): number {
    return this.workers.length;
  }

  private spawn(index: number): Worker {
    const worker = new Worker(WORKER_URL, { workerData: { ...this.options.settings, shard: index } satisfies ShardSettings });
    worker.on('message', (out: ShardOut) => this.options.onOutput(index, out));
    worker.on('error', (err) => this.log.error({ shard: index, err }, 'shard worker error'));
    worker.on('exit', (code) => {
      if (this.stopping) return;
      this.log.error({ shard: index, code }, 'shard worker exited; restarting it');
      this.options.onCrash(index);
      this.workers[index] = this.spawn(index);
    });
    return worker;
  }

  shardOf(groupCode: string): number {
    return shardIndexOf(groupCode, this.workers.length);
  }

  send(shard: number, cmd: ShardCmd): void {
    this.pending[shard].push(cmd);
    this.schedule();
  }

  sendToAll(cmd: ShardCmd): void {
    for (let i = 0; i < this.workers.length; i++) this.send(i, cmd);
  }

  obs(groupCode: string, raw: string, now: number): void {
    const queue = this.pending[this.shardOf(groupCode)];
    let last = queue[queue.length - 1] as ObsBatchCmd | undefined;
    if (!last || last.t !== 'obs') queue.push((last = { t: 'obs', groupCodes: [], raws: [], nows: [] }));
    last.groupCodes.push(groupCode);
    last.raws.push(raw);
    last.nows.push(now);
    this.schedule();
  }

  aux(shard: number, matchId: string, playerId: string, raw: string, now: number): void {
    const queue = this.pending[shard];
    let last = queue[queue.length - 1] as AuxBatchCmd | undefined;
    if (!last || last.t !== 'aux') queue.push((last = { t: 'aux', matchIds: [], playerIds: [], raws: [], nows: [] }));
    last.matchIds.push(matchId);
    last.playerIds.push(playerId);
    last.raws.push(raw);
    last.nows.push(now);
    this.schedule();
  }

  private queued = 0;

  /** One postMessage per shard per batch window: a message costs the same whether it carries one
   *  payload or fifty (stack.md), and the window is small next to the 100 ms frame interval. */
  private schedule(): void {
    if (++this.queued >= MAX_BATCH) return this.flush();
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    if (this.options.batchMs > 0) setTimeout(() => this.flush(), this.options.batchMs);
    else setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    this.queued = 0;
    for (let i = 0; i < this.workers.length; i++) {
      const cmds = this.pending[i];
      if (cmds.length === 0) continue;
      this.pending[i] = [];
      this.workers[i].postMessage(cmds);
    }
  }

  async close(): Promise<void> {
    this.flush();
    this.stopping = true;
    for (const worker of this.workers) worker.postMessage([{ t: 'stop' }]);
    await Promise.all(this.workers.map((w) => new Promise<void>((resolve) => {
      const timer = setTimeout(() => { void w.terminate().then(() => resolve()); }, 2000);
      w.once('exit', () => { clearTimeout(timer); resolve(); });
    })));
  }
}
