// The TeamInfoStore contract (src/main/previews/team-info-store.ts): every adapter must pass it.
import { describe, expect, it } from 'vitest';
import { closedAfterEach } from '../ports/opened-stores.js';
import type { TeamInfoFinal, TeamInfoStore } from '../../../src/main/previews/team-info-store.js';

export interface TeamInfoStoreHarness {
  make(ttlMs: number): TeamInfoStore | Promise<TeamInfoStore>;
  /** Lets `ms` pass for the store's TTLs. */
  advance(ms: number): Promise<void>;
}

const TTL = 1000;
const teams = (l: string, r: string) => ({ leftTeam: { name: l }, rightTeam: { name: r } });
const final = (tag: string, higherScore: 0 | 1 = 0): TeamInfoFinal => ({ higherScore, tournamentInfo: { tag }, sponsorInfo: { tag }, isSupporter: tag === 'S' });

export function describeTeamInfoStoreContract(name: string, harness: TeamInfoStoreHarness): void {
  describe(`TeamInfoStore contract: ${name}`, () => {
    const track = closedAfterEach<TeamInfoStore>();
    const make = async () => track(await harness.make(TTL));

    it('set stores the teams; set again replaces the entry, post-match members included', async () => {
      const store = await make();
      expect(await store.get('G1')).toBeUndefined();
      await store.set('G1', teams('A', 'B'));
      expect(await store.get('G1')).toEqual(teams('A', 'B'));
      await store.setFinal('G1', final('S', 1));
      await store.set('G1', teams('C', 'D'));
      expect(await store.get('G1')).toEqual(teams('C', 'D'));
      expect(await store.size()).toBe(1);
    });

    it('setFinal adds the post-match members to the entry\'s own teams', async () => {
      const store = await make();
      await store.set('G2', teams('A', 'B'));
      await store.setFinal('G2', { ...final('S', 1), ...teams('X', 'Y') });
      expect(await store.get('G2')).toEqual({ ...teams('A', 'B'), higherScore: 1, tournamentInfo: { tag: 'S' }, sponsorInfo: { tag: 'S' }, isSupporter: true });
    });

    it('without an entry, setFinal recreates it only when given the teams', async () => {
      const store = await make();
      await store.setFinal('G3', final('N'));
      expect(await store.get('G3')).toBeUndefined();
      await store.setFinal('G3', { ...final('N'), ...teams('A', 'B') });
      expect(await store.get('G3')).toEqual({ ...teams('A', 'B'), higherScore: 0, tournamentInfo: { tag: 'N' }, sponsorInfo: { tag: 'N' }, isSupporter: false });
    });

    it('an entry lives TTL from its last write; setFinal resets it', async () => {
      const store = await make();
      await store.set('T1', teams('A', 'B'));
      await store.set('T2', teams('A', 'B'));
      await harness.advance(TTL - 200);
      await store.setFinal('T1', final('N'));
      await harness.advance(300);
      expect(await store.get('T2')).toBeUndefined();
      expect((await store.get('T1'))?.tournamentInfo).toEqual({ tag: 'N' });
      expect(await store.size()).toBe(1);
      await harness.advance(TTL);
      expect(await store.get('T1')).toBeUndefined();
      expect(await store.size()).toBe(0);
    });

    it('concurrent final updates never mix: the entry is one of them, whole', async () => {
      const store = await make();
      await store.set('RACE', teams('A', 'B'));
      await Promise.all([store.setFinal('RACE', final('P', 0)), store.setFinal('RACE', final('Q', 1)), store.set('RACE', teams('A', 'B'))]);
      const got = await store.get('RACE');
      const tag = (got?.tournamentInfo as { tag?: string } | undefined)?.tag;
      if (tag === undefined) expect(got).toEqual(teams('A', 'B'));
      else expect(got).toEqual({ ...teams('A', 'B'), higherScore: tag === 'P' ? 0 : 1, tournamentInfo: { tag }, sponsorInfo: { tag }, isSupporter: false });
    });
  });
}
