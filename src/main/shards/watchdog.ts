// The stall watchdog: a shard thread that stopped answering (stats come every STATS_INTERVAL_MS)
// is ended; its exit restarts it (the pool's crash recovery).
import { STALL_CHECK_MS, STALL_MS } from '../../protocol/limits.js';
import type { Logger } from '../base/log.js';

export class StallWatchdog {
  /** Per shard: when it was last heard from. */
  private readonly lastHeard: number[] = [];
  private readonly timer: NodeJS.Timeout;

  /** `end`: terminates shard `index`'s thread. */
  constructor(count: number, private readonly log: Logger, private readonly end: (index: number) => void) {
    for (let i = 0; i < count; i++) this.lastHeard.push(Date.now());
    this.timer = setInterval(() => this.check(), STALL_CHECK_MS);
    this.timer.unref();
  }

  heard(index: number, now = Date.now()): void {
    this.lastHeard[index] = now;
  }

  private check(): void {
    const now = Date.now();
    for (let i = 0; i < this.lastHeard.length; i++) {
      if (now - this.lastHeard[i] < STALL_MS) continue;
      this.log.error({ shard: i, silentMs: now - this.lastHeard[i] }, 'shard worker silent; terminating it');
      this.lastHeard[i] = now;
      this.end(i);
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
