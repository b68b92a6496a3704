// FixtureStore on Redis (schedule/fixture-store.ts), shared by every node: one hash (keys.fixtures),
// group code → the fixture's JSON, without expiry, and a revision counter every write increments (operator data; Redis's own persistence keeps it
// across a Redis restart). `add` is one script (all or nothing, the bound checked in the same
// step); `update` reads, changes and writes back with a compare-and-set script on the text read,
// retried when another node wrote meanwhile. The scripts: lua/fixtures.ts.
import type { Fixture, FixtureAdd, FixtureStore } from '../../fixture-store.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { FIXTURES_SCRIPTS } from './lua/fixtures.js';

/** Attempts of one update before it gives up (another node writing the same fixture that often is a fault). */
const UPDATE_ATTEMPTS = 16;

export class RedisFixtureStore implements FixtureStore {
  /** The command connection with this store's scripts (lua/fixtures.ts). */
  private get lua() { return this.conn.scripts(FIXTURES_SCRIPTS); }

  constructor(private readonly conn: RedisConnection) {}

  async add(fixtures: readonly Fixture[], max: number): Promise<FixtureAdd> {
    const pairs: string[] = [];
    for (const f of fixtures) pairs.push(f.groupCode, JSON.stringify(f));
    const answer = await this.lua.odsFixtureAdd(this.conn.keys.fixtures, this.conn.keys.fixturesRevision, max, ...pairs);
    if (answer === 'ok') return { ok: true };
    if (answer === 'full') return { ok: false, reason: 'full', max };
    return { ok: false, reason: 'exists', groupCode: answer.slice('exists:'.length) };
  }

  async get(groupCode: string): Promise<Fixture | undefined> {
    const text = await this.conn.cmd.hget(this.conn.keys.fixtures, groupCode);
    return text === null ? undefined : (JSON.parse(text) as Fixture);
  }

  async list(): Promise<Fixture[]> {
    const texts = await this.lua.odsFixtureAll(this.conn.keys.fixtures);
    return texts.map((t) => JSON.parse(t) as Fixture);
  }

  async update(groupCode: string, change: (current: Fixture) => Fixture | null | undefined): Promise<Fixture | undefined> {
    const key = this.conn.keys.fixtures;
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const read = await this.conn.cmd.hget(key, groupCode);
      if (read === null) return undefined;
      const next = change(JSON.parse(read) as Fixture);
      if (next === undefined) return JSON.parse(read) as Fixture;
      if (await this.lua.odsFixtureSwap(key, this.conn.keys.fixturesRevision, groupCode, read, next === null ? '' : JSON.stringify(next)) === 1) return next ?? undefined;
    }
    throw new Error(`fixture ${groupCode}: changed by others ${UPDATE_ATTEMPTS} times in a row`);
  }

  async revision(): Promise<number> {
    return Number(await this.conn.cmd.get(this.conn.keys.fixturesRevision) ?? 0);
  }

  /** No timers or subscriptions of its own; the connection is the composition root's. */
  close(): void {}
}
