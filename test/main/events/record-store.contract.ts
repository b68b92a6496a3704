// The RecordStore and DeadLetterStore contracts (src/main/events/record-store.ts): every adapter must pass them.
import { describe, expect, it } from 'vitest';
import { closedAfterEach } from '../ports/opened-stores.js';
import { MAX_DEAD_LETTERS, type DeadLetter, type DeadLetterStore, type MatchRecord, type RecordStore } from '../../../src/main/events/record-store.js';

export interface StoreHarness<T> {
  /** A new, empty store keeping records for `retentionMs`. */
  make(retentionMs: number): T | Promise<T>;
  /** A second store over the same data (another node, or the process after a restart). */
  reopen(first: T): T | Promise<T>;
}

const HOUR = 3_600_000;
let made = 0;

/** A record of 10 players and `rounds` rounds (~35 kB of JSON at 19 rounds, as the recorded match's), stored `agoMs` ago. */
export function sampleRecord(groupCode: string, agoMs: number, rounds = 19): MatchRecord {
  const matchKey = `${groupCode}-${(1_700_000_000_000 + ++made).toString(36)}`;
  const players = Array.from({ length: 10 }, (_, i) => ({ playerId: `p-${i}-0123456789abcdef`, name: `Player ${i}`, team: i < 5 ? 0 : 1 }));
  const counts = { kills: 1, deaths: 1, assists: 0, teamKills: 0, headshots: 1, firstBloods: 0, plants: 0, defuses: 0, spent: 3900 };
  return {
    matchKey, groupCode, matchId: `match-${made}`, map: 'Ascent', teams: [{ name: 'Alpha', tricode: 'ALP' }, { name: 'Beta', tricode: 'BET' }],
    startedAt: new Date(Date.now() - agoMs - 2_400_000).toISOString(), endedAt: new Date(Date.now() - agoMs).toISOString(), storedAt: new Date(Date.now() - agoMs).toISOString(),
    reason: 'completed', score: { team_0: 13, team_1: rounds - 13 }, series: null,
    rounds: Array.from({ length: rounds }, (_, r) => ({ round: r + 1, winner: { team: (r % 2) as 0 | 1, name: r % 2 ? 'Beta' : 'Alpha', tricode: r % 2 ? 'BET' : 'ALP', side: 'attack' as const }, method: 'elimination', score: { team_0: r, team_1: 0 } })),
    players: players.map((p) => ({ ...p, agent: 'Jett', ...counts })),
    playerRounds: Array.from({ length: rounds }, (_, r) => players.map((p) => ({ round: r + 1, ...p, ...counts }))).flat(),
  };
}

export function describeRecordStoreContract(name: string, harness: StoreHarness<RecordStore>): void {
  describe(`RecordStore contract: ${name}`, () => {
    const track = closedAfterEach<RecordStore>();
    const make = async (retentionMs = HOUR) => track(await harness.make(retentionMs));

    it('put keeps a record: get returns it whole, list its summary (no rounds or players), newest first', async () => {
      const store = await make();
      expect(await store.list()).toEqual([]);
      const older = sampleRecord('RECA', 60_000);
      const newer = sampleRecord('RECB', 1_000);
      await store.put(older);
      await store.put(newer);
      expect(await store.get(older.matchKey)).toEqual(older);
      expect(await store.get(newer.matchKey)).toEqual(newer);
      expect(await store.get('NONE-0')).toBeUndefined();
      const list = await store.list();
      expect(list.map((s) => s.matchKey)).toEqual([newer.matchKey, older.matchKey]);
      expect(list[0]).toEqual({ matchKey: newer.matchKey, groupCode: 'RECB', matchId: newer.matchId, map: 'Ascent', teams: newer.teams, score: newer.score, reason: 'completed', startedAt: newer.startedAt, endedAt: newer.endedAt, storedAt: newer.storedAt });
    });

    it('list filters by group code and returns at most `limit`, the newest', async () => {
      const store = await make();
      const a1 = sampleRecord('FILTA', 30_000);
      const b1 = sampleRecord('FILTB', 20_000);
      const a2 = sampleRecord('FILTA', 10_000);
      for (const r of [a1, b1, a2]) await store.put(r);
      expect((await store.list({ groupCode: 'FILTA' })).map((s) => s.matchKey)).toEqual([a2.matchKey, a1.matchKey]);
      expect((await store.list({ groupCode: 'NOPE' }))).toEqual([]);
      expect((await store.list({ limit: 2 })).map((s) => s.matchKey)).toEqual([a2.matchKey, b1.matchKey]);
      expect((await store.list({ groupCode: 'FILTA', limit: 1 })).map((s) => s.matchKey)).toEqual([a2.matchKey]);
    });

    it('a record past the retention is neither listed nor returned, and prune removes it; a put again changes nothing', async () => {
      const store = await make(60_000);
      const fresh = sampleRecord('RETA', 1_000);
      const old = sampleRecord('RETB', 50_000);
      await store.put(fresh);
      await store.put(old);
      await store.put(fresh);
      expect((await store.list()).map((s) => s.matchKey)).toEqual([fresh.matchKey, old.matchKey]);
      // 20 s later the old one is 70 s old: past the 60 s retention.
      const later = Date.now() + 20_000;
      expect(await store.prune(later)).toBe(1);
      expect(await store.prune(later)).toBe(0);
      expect((await store.list()).map((s) => s.matchKey)).toEqual([fresh.matchKey]);
      expect(await store.get(old.matchKey)).toBeUndefined();
      expect(await store.get(fresh.matchKey)).toEqual(fresh);
      const expired = sampleRecord('RETC', 61_000);
      await store.put(expired);
      expect(await store.get(expired.matchKey)).toBeUndefined();
      expect((await store.list()).map((s) => s.matchKey)).toEqual([fresh.matchKey]);
    });

    it('another store over the same data (another node, a restart) lists and returns the same records', async () => {
      const first = await make();
      const r = sampleRecord('REOPEN', 5_000);
      await first.put(r);
      const second = track(await harness.reopen(first));
      expect((await second.list({ groupCode: 'REOPEN' })).map((s) => s.matchKey)).toEqual([r.matchKey]);
      expect(await second.get(r.matchKey)).toEqual(r);
    });
  });
}

const letter = (n: number): DeadLetter => ({
  endpointId: 'wh_1', eventId: `K-1.${n}`, type: 'kill', groupCode: 'K', attempts: 3, lastError: 'HTTP 500',
  firstAttemptAt: new Date(1_700_000_000_000 + n).toISOString(), deadAt: new Date(1_700_000_100_000 + n).toISOString(),
});

export function describeDeadLetterStoreContract(name: string, harness: StoreHarness<DeadLetterStore>): void {
  describe(`DeadLetterStore contract: ${name}`, () => {
    const track = closedAfterEach<DeadLetterStore>();
    const make = async () => track(await harness.make(HOUR));

    it('keeps the dead letters oldest first, capped at the newest MAX_DEAD_LETTERS', async () => {
      const store = await make();
      expect(await store.list()).toEqual([]);
      await store.add(letter(1));
      await store.add(letter(2));
      expect(await store.list()).toEqual([letter(1), letter(2)]);
      await Promise.all(Array.from({ length: MAX_DEAD_LETTERS }, (_, i) => store.add(letter(3 + i))));
      const all = await store.list();
      expect(all).toHaveLength(MAX_DEAD_LETTERS);
      expect(all[0]).toEqual(letter(3));
      expect(all.at(-1)).toEqual(letter(2 + MAX_DEAD_LETTERS));
    });

    it('another store over the same data (another node, a restart) lists the same dead letters', async () => {
      const first = await make();
      await first.add(letter(7));
      const second = track(await harness.reopen(first));
      expect(await second.list()).toEqual([letter(7)]);
    });

    it('remove takes every dead letter of that event to that endpoint, and no other; another store sees it gone', async () => {
      const first = await make();
      const again = { ...letter(8), deadAt: new Date(1_700_000_200_000).toISOString(), attempts: 5 };
      const otherEndpoint = { ...letter(8), endpointId: 'wh_2' };
      for (const l of [letter(7), letter(8), otherEndpoint, again, letter(9)]) await first.add(l);
      expect(await first.remove('wh_1', 'K-1.8')).toBe(2);
      expect(await first.list()).toEqual([letter(7), otherEndpoint, letter(9)]);
      expect(await first.remove('wh_1', 'K-1.8')).toBe(0);
      expect(await first.remove('wh_1', 'NOPE-1.1')).toBe(0);
      const second = track(await harness.reopen(first));
      expect(await second.list()).toEqual([letter(7), otherEndpoint, letter(9)]);
    });
  });
}
