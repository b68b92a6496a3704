// StandbyStore on Redis (ports/standby-store.ts): one hash per match, `standby:<code>`, with
// `armedUntil`, `digest` (sha-256 of the standby secret, never the secret) and `primary`. No Lua:
// of two logons in an open window, the one whose HDEL of `armedUntil` removed it is admitted
// (HDEL answers 1 to exactly one caller). The hash expires a day after its last change, so a
// match released without a `delete` (a lost node) leaves nothing behind for long.
import type { Seat, StandbyRecord, StandbyStore } from '../../ports/standby-store.js';
import type { RedisConnection } from './connection.js';

const TTL_S = 86_400;

export class RedisStandbyStore implements StandbyStore {
  constructor(private readonly conn: RedisConnection) {}

  private key(groupCode: string): string {
    return this.conn.keys.standby(groupCode);
  }

  async arm(groupCode: string, until: number): Promise<void> {
    await this.conn.cmd.multi().hset(this.key(groupCode), 'armedUntil', String(until)).expire(this.key(groupCode), TTL_S).exec();
  }

  async admit(groupCode: string, secretDigest: string, now: number): Promise<boolean> {
    const key = this.key(groupCode);
    const until = Number(await this.conn.cmd.hget(key, 'armedUntil'));
    if (!(until > now)) return false;
    if ((await this.conn.cmd.hdel(key, 'armedUntil')) !== 1) return false;
    await this.conn.cmd.multi().hset(key, 'digest', secretDigest).expire(key, TTL_S).exec();
    return true;
  }

  async get(groupCode: string): Promise<StandbyRecord | undefined> {
    const h = await this.conn.cmd.hgetall(this.key(groupCode));
    if (!h || Object.keys(h).length === 0) return undefined;
    return { armedUntil: Number(h.armedUntil) || 0, secretDigest: h.digest ?? '', primary: h.primary === 'standby' ? 'standby' : 'group' };
  }

  async setPrimary(groupCode: string, seat: Seat): Promise<void> {
    await this.conn.cmd.multi().hset(this.key(groupCode), 'primary', seat).expire(this.key(groupCode), TTL_S).exec();
  }

  async delete(groupCode: string): Promise<void> {
    await this.conn.cmd.del(this.key(groupCode));
  }

  close(): void {}
}
