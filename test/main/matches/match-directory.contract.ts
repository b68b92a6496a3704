// The MatchDirectory contract (src/main/matches/match-directory.ts): every adapter must pass it.
// Reads serve the process's view: a remote adapter's `settle` waits until its view caught up.
import { describe, expect, it } from 'vitest';
import type { MatchDirectory, NewMatch } from '../../../src/main/matches/match-directory.js';

export interface MatchDirectoryHarness {
  make(): MatchDirectory | Promise<MatchDirectory>;
  /** Until the process's view shows every write made so far (memory: at once). */
  settle(): Promise<void>;
}

const match = (groupCode: string, keyId = 'key:a', secretDigest = 'ab'.repeat(32)): NewMatch => ({
  groupCode, secretDigest, organizationId: '', isSupporter: false, keyId, createdAt: 1, teams: { leftTeam: { name: 'L' }, rightTeam: { name: 'R' } },
});
const limits = (maxLive: number, maxPerKey: number) => ({ limits: { maxLive, maxPerKey } });

export function describeMatchDirectoryContract(name: string, harness: MatchDirectoryHarness): void {
  describe(`MatchDirectory contract: ${name}`, () => {
    it('claims a free code with a new epoch; a live code is taken, with its record', async () => {
      const dir = await harness.make();
      const first = await dir.claim(match('G1', 'key:a', '11'.repeat(32)));
      expect(first.ok).toBe(true);
      if (!first.ok) return;
      expect(first.record).toMatchObject({ groupCode: 'G1', secretDigest: '11'.repeat(32), matchId: '', keyId: 'key:a' });
      expect(first.record.playerIds.size).toBe(0);
      const second = await dir.claim(match('G1', 'key:b', '22'.repeat(32)));
      expect(second).toMatchObject({ ok: false, reason: 'taken', record: { secretDigest: '11'.repeat(32), epoch: first.record.epoch } });
      await harness.settle();
      expect(dir.get('G1')?.epoch).toBe(first.record.epoch);
      expect(dir.count()).toBe(1);
      expect([...dir.all()].map((m) => m.groupCode)).toEqual(['G1']);
    });

    it('of two concurrent claims of one code, exactly one wins', async () => {
      const dir = await harness.make();
      const results = await Promise.all([dir.claim(match('RACE')), dir.claim(match('RACE'))]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok && r.reason === 'taken')).toHaveLength(1);
      await harness.settle();
      expect(dir.count()).toBe(1);
      expect(dir.countForKey('key:a')).toBe(1);
    });

    it('admission is checked in the claim: in total, then per key; releases make room', async () => {
      const dir = await harness.make();
      expect((await dir.claim(match('A1', 'key:a'), limits(3, 2))).ok).toBe(true);
      expect((await dir.claim(match('A2', 'key:a'), limits(3, 2))).ok).toBe(true);
      expect(await dir.claim(match('A3', 'key:a'), limits(3, 2))).toEqual({ ok: false, reason: 'key_capacity' });
      const b1 = await dir.claim(match('B1', 'key:b'), limits(3, 2));
      expect(b1.ok).toBe(true);
      expect(await dir.claim(match('B2', 'key:b'), limits(3, 2))).toEqual({ ok: false, reason: 'capacity' });
      expect((await dir.claim(match('B2', 'key:b'))).ok).toBe(true); // no limits: a restored match
      await harness.settle();
      expect(dir.count()).toBe(4);
      expect(dir.countForKey('key:a')).toBe(2);
      expect(dir.countForKey('key:b')).toBe(2);
      expect(dir.countForKey('key:c')).toBe(0);
      const a1 = dir.get('A1')!;
      expect(dir.release('A1', a1.epoch)?.groupCode).toBe('A1');
      await harness.settle();
      expect(dir.countForKey('key:a')).toBe(1);
      expect((await dir.claim(match('A3', 'key:a'), limits(4, 2))).ok).toBe(true);
    });

    it('epochs grow with every claim, above `after` too; a release needs the current epoch', async () => {
      const dir = await harness.make();
      const a = await dir.claim(match('E1'));
      const b = await dir.claim(match('E2'));
      if (!a.ok || !b.ok) throw new Error('claims refused');
      expect(b.record.epoch).toBeGreaterThan(a.record.epoch);
      expect(dir.release('E1', a.record.epoch + 1)).toBeUndefined();
      await harness.settle();
      expect(dir.get('E1')).toBeDefined();
      expect(dir.release('E1', a.record.epoch)).toBeDefined();
      await harness.settle();
      expect(dir.get('E1')).toBeUndefined();
      const again = await dir.claim(match('E1'));
      if (!again.ok) throw new Error('claim refused');
      expect(again.record.epoch).toBeGreaterThan(b.record.epoch);
      const restored = await dir.claim(match('E3'), { after: again.record.epoch + 100 });
      if (!restored.ok) throw new Error('claim refused');
      expect(restored.record.epoch).toBeGreaterThan(again.record.epoch + 100);
    });

    it('indexes live matches by game match id; the roster answers auxiliary logons', async () => {
      const dir = await harness.make();
      await dir.claim(match('M1'));
      await dir.claim(match('M2'));
      await dir.claim({ ...match('M3'), matchId: 'game-2' });
      dir.setMatchId('M1', 'game-1');
      dir.setMatchId('M2', 'game-1');
      dir.setRoster('M1', ['p1', 'p2']);
      dir.setMatchId('unknown', 'game-1');
      await harness.settle();
      expect([...(dir.groupsForMatchId('game-1') ?? [])].sort()).toEqual(['M1', 'M2']);
      expect([...(dir.groupsForMatchId('game-2') ?? [])]).toEqual(['M3']);
      expect(dir.hasPlayer('game-1', 'p2')).toBe(true);
      expect(dir.hasPlayer('game-1', 'p3')).toBe(false);
      expect(dir.hasPlayer('game-2', 'p1')).toBe(false);
      dir.setMatchId('M2', 'game-3');
      dir.release('M1', dir.get('M1')!.epoch);
      await harness.settle();
      expect(dir.groupsForMatchId('game-1')?.size ?? 0).toBe(0);
      expect(dir.hasPlayer('game-1', 'p2')).toBe(false);
      expect([...(dir.groupsForMatchId('game-3') ?? [])]).toEqual(['M2']);
    });

    it('a rotated secret replaces the digest at once', async () => {
      const dir = await harness.make();
      await dir.claim(match('S1', 'key:a', '11'.repeat(32)));
      expect(dir.setSecretDigest('S1', '33'.repeat(32))).toBe(true);
      expect(dir.setSecretDigest('nope', '33'.repeat(32))).toBe(false);
      await harness.settle();
      expect(dir.get('S1')?.secretDigest).toBe('33'.repeat(32));
      const taken = await dir.claim(match('S1'));
      expect(taken).toMatchObject({ ok: false, reason: 'taken', record: { secretDigest: '33'.repeat(32) } });
    });
  });
}
