// StandbyStore on Redis (standby/standby-store.ts): one hash per match, `standby:<code>`, with
// `armedUntil`, `digest` (sha-256 of the standby secret, never the secret) and `primary`. The
// admission is one script (lua/standby.ts): of two logons in an open window exactly one is admitted.
// The hash expires a day after its last change, so a match released without a `delete` (a lost
// node) leaves nothing behind for long.
import type { Seat, StandbyRecord, StandbyStore } from '../../standby-store.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { STANDBY_SCRIPTS } from './lua/standby.js';

const TTL_S = 86_400;

export class RedisStandbyStore implements StandbyStore {
  /** The command connection with this store's scripts (lua/standby.ts). */
  private get lua() { return this.conn.scripts(STANDBY_SCRIPTS); }

  constructor(private readonly conn: RedisConnection) {}

  private key(groupCode: string): string {
    return this.conn.keys.standby(groupCode);
  }

  async arm(groupCode: string, until: number): Promise<void> {
    await this.lua.odsStandbySet(this.key(groupCode), 'armedUntil', String(until), TTL_S);
  }

  async admit(groupCode: string, secretDigest: string, now: number): Promise<boolean> {
    return (await this.lua.odsStandbyAdmit(this.key(groupCode), secretDigest, now, TTL_S)) === 1;
  }

  async get(groupCode: string): Promise<StandbyRecord | undefined> {
    const [armedUntil, digest, primary] = await this.conn.cmd.hmget(this.key(groupCode), 'armedUntil', 'digest', 'primary');
    if (armedUntil === null && digest === null && primary === null) return undefined;
    return { armedUntil: Number(armedUntil) || 0, secretDigest: digest ?? '', primary: primary === 'standby' ? 'standby' : 'group' };
  }

  async setPrimary(groupCode: string, seat: Seat): Promise<void> {
    await this.lua.odsStandbySet(this.key(groupCode), 'primary', seat, TTL_S);
  }

  async delete(groupCode: string): Promise<void> {
    await this.lua.odsStandbyDelete(this.key(groupCode));
  }

  close(): void {}
}
