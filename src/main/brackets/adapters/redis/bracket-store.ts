// BracketStore on Redis (brackets/bracket-store.ts), shared by every node: the document as one JSON
// string (keys.brackets, tokens included: in Redis and nowhere else), without expiry (operator data;
// Redis's own persistence keeps it). `update` reads, changes and writes back with a compare-and-set
// on the text read, retried when another node wrote meanwhile. The lead (keys.bracketsLead) is the
// node id of the one node that reads and reports, with a TTL its holder renews. Scripts: lua/brackets.ts.
import type { BracketDoc, BracketStore } from '../../bracket-store.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { BRACKETS_SCRIPTS } from './lua/brackets.js';

const UPDATE_ATTEMPTS = 16;
const EMPTY: BracketDoc = { links: [], sets: {}, syncs: {} };

export class RedisBracketStore implements BracketStore {
  private get lua() { return this.conn.scripts(BRACKETS_SCRIPTS); }

  constructor(private readonly conn: RedisConnection) {}

  async read(): Promise<BracketDoc> {
    const text = await this.conn.cmd.get(this.conn.keys.brackets);
    return text === null ? structuredClone(EMPTY) : (JSON.parse(text) as BracketDoc);
  }

  async update(change: (doc: BracketDoc) => BracketDoc | undefined): Promise<BracketDoc> {
    const key = this.conn.keys.brackets;
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const read = await this.conn.cmd.get(key);
      const doc = read === null ? structuredClone(EMPTY) : (JSON.parse(read) as BracketDoc);
      const next = change(structuredClone(doc));
      if (next === undefined) return doc;
      if (await this.lua.odsBracketsSwap(key, read ?? '', JSON.stringify(next)) === 1) return next;
    }
    throw new Error(`the brackets: changed by others ${UPDATE_ATTEMPTS} times in a row`);
  }

  async lead(nodeId: string, ttlMs: number): Promise<boolean> {
    return (await this.lua.odsBracketsLead(this.conn.keys.bracketsLead, nodeId, ttlMs)) === 1;
  }

  /** No timers or subscriptions of its own; the connection is the composition root's. */
  close(): void {}
}
