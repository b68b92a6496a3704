// OutputDelayStore on Redis (output-delay/output-delay-store.ts), shared by every node: one hash
// (keys.outputDelays), group code → seconds, without expiry (operator data; Redis's own persistence
// keeps it across a Redis restart), and a revision counter every write increments (each node's view,
// output-delay/output-delays.ts, reads the hash again only when it moved). The bound is checked in the
// write's script (lua/output-delays.ts).
import type { OutputDelayStore } from '../../output-delay-store.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { OUTPUT_DELAYS_SCRIPTS } from './lua/output-delays.js';

export class RedisOutputDelayStore implements OutputDelayStore {
  /** The command connection with this store's scripts (lua/output-delays.ts). */
  private get lua() { return this.conn.scripts(OUTPUT_DELAYS_SCRIPTS); }

  constructor(private readonly conn: RedisConnection) {}

  async all(): Promise<Record<string, number>> {
    const raw = await this.conn.cmd.hgetall(this.conn.keys.outputDelays);
    const out: Record<string, number> = {};
    for (const [code, s] of Object.entries(raw)) if (Number(s) > 0) out[code] = Number(s);
    return out;
  }

  async set(groupCode: string, seconds: number, max: number): Promise<boolean> {
    return (await this.lua.odsDelaySet(this.conn.keys.outputDelays, this.conn.keys.outputDelaysRevision, groupCode, String(seconds), max)) === 1;
  }

  async revision(): Promise<number> {
    return Number(await this.conn.cmd.get(this.conn.keys.outputDelaysRevision) ?? 0);
  }

  /** No timers or subscriptions of its own; the connection is the composition root's. */
  close(): void {}
}
