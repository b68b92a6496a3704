// The MatchOwnership contract (src/main/matches/match-ownership.ts): every adapter must pass it.
// Ownership only exists between nodes: the harness gives two (or three) nodes sharing one store,
// each with its MatchDirectory (where claims are made) and its MatchOwnership.
import { describe, expect, it } from 'vitest';
import type { MatchDirectory, NewMatch } from '../../../src/main/matches/match-directory.js';
import type { MatchOwnership } from '../../../src/main/matches/match-ownership.js';
import { OutputFencedError, type EventOutbox, type OutputFence } from '../../../src/main/events/event-outbox.js';

export interface OwnershipNode {
  directory: MatchDirectory;
  ownership: MatchOwnership;
}

export interface MatchOwnershipHarness {
  /** Two nodes sharing one store. `pausedA`: node A renews its leases only when `renew` says so. */
  pair(options?: { pausedA?: boolean }): Promise<[OwnershipNode, OwnershipNode]>;
  /** A further node on the pair's store (its view loaded from the store). */
  join(): Promise<OwnershipNode>;
  /** The node stops for good (it "dies"): its leases are no longer renewed and run out. */
  stop(node: OwnershipNode): void;
  /** One renewal of the node's leases, now. */
  renew(node: OwnershipNode): Promise<void>;
  /** Until the node's directory view shows every change made so far. */
  settle(node: OwnershipNode): Promise<void>;
  /** A generous bound for an unrenewed lease to run out (a loaded machine). */
  lapseMs: number;
  /** The shared event outbox on the node's store (the matches' events: what an outputs lease is of). */
  outbox(node: OwnershipNode): EventOutbox;
}

const match = (groupCode: string, keyId = 'key:a'): NewMatch => ({
  groupCode, secretDigest: 'ab'.repeat(32), organizationId: 'org', isSupporter: false, keyId, createdAt: 1700000000000,
  teams: { leftTeam: { name: 'L', players: [] }, rightTeam: { name: 'R', tags: {} } },
});

export function describeMatchOwnershipContract(name: string, harness: MatchOwnershipHarness): void {
  describe(`MatchOwnership contract: ${name}`, () => {
    it('the claiming node owns the match, the other sees who does; a release ends it', async () => {
      const [a, b] = await harness.pair();
      const claim = await a.directory.claim(match('V1'));
      if (!claim.ok) throw new Error('refused');
      expect(a.ownership.owns('V1')).toBe(true);
      expect(b.ownership.owns('V1')).toBe(false);
      await harness.settle(b);
      expect(b.ownership.ownerOf('V1')).toBe(a.ownership.nodeId);
      expect(a.ownership.ownerOf('V1')).toBe(a.ownership.nodeId);
      expect(await b.ownership.orphans()).toEqual([]);
      a.directory.release('V1', claim.record.epoch);
      expect(a.ownership.owns('V1')).toBe(false);
      await harness.settle(b);
      expect(b.ownership.ownerOf('V1')).toBeUndefined();
    });

    it('leaseLeftMs: the owner\'s lease time left as it knows it (0 elsewhere); unrenewed, it runs out on the owner too; a renewal gives it back', async () => {
      const [a, b] = await harness.pair({ pausedA: true });
      const claim = await a.directory.claim(match('LEFT1'));
      if (!claim.ok) throw new Error('refused');
      expect(a.ownership.leaseLeftMs('LEFT1')).toBeGreaterThan(0);
      expect(b.ownership.leaseLeftMs('LEFT1')).toBe(0);
      expect(a.ownership.leaseLeftMs('NOSUCH')).toBe(0);
      // A node that did not renew (paused) counts its lease out by its own clock: it delivers nothing then.
      await expect.poll(() => a.ownership.leaseLeftMs('LEFT1'), { timeout: harness.lapseMs, interval: 50 }).toBe(0);
      await harness.renew(a);
      expect(a.ownership.leaseLeftMs('LEFT1')).toBeGreaterThan(0);
    });

    it('of concurrent claims of one code on both nodes, exactly one node owns it', async () => {
      const [a, b] = await harness.pair();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).directory.claim(match('RACE'))));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(Number(a.ownership.owns('RACE')) + Number(b.ownership.owns('RACE'))).toBe(1);
    });

    it('a node that stops renewing: its match becomes an orphan, adopted once with a higher epoch; its stale release changes nothing', async () => {
      const [a, b] = await harness.pair();
      const claim = await a.directory.claim(match('D1'));
      if (!claim.ok) throw new Error('refused');
      a.directory.setRoster('D1', ['p9']);
      await harness.settle(a);
      expect(await b.ownership.orphans()).toEqual([]);
      harness.stop(a);
      await expect.poll(() => b.ownership.orphans(), { timeout: harness.lapseMs }).toEqual(['D1']);
      const [first, second] = await Promise.all([b.ownership.adopt('D1', claim.record.epoch), b.ownership.adopt('D1', claim.record.epoch)]);
      const adopted = first ?? second;
      expect(Number(first !== undefined) + Number(second !== undefined)).toBe(1);
      expect(adopted?.epoch).toBeGreaterThan(claim.record.epoch);
      expect(adopted?.playerIds).toEqual(new Set(['p9']));
      expect(await b.ownership.adopt('D1', claim.record.epoch)).toBeUndefined();
      expect(b.ownership.owns('D1')).toBe(true);
      expect(b.ownership.ownerOf('D1')).toBe(b.ownership.nodeId);
      expect(await b.ownership.orphans()).toEqual([]);
      await harness.renew(b); // the adopter renews the lease it took
      expect(b.ownership.owns('D1')).toBe(true);
      // A's stale writes and release (its view still has the old epoch) change nothing in the store.
      a.directory.setMatchId('D1', 'stale');
      expect(a.directory.release('D1', claim.record.epoch)).toBeDefined();
      await harness.settle(b);
      expect(b.directory.get('D1')).toMatchObject({ matchId: '', epoch: adopted!.epoch });
      const c = await harness.join();
      expect(c.directory.get('D1')).toMatchObject({ matchId: '', epoch: adopted!.epoch });
      expect(c.ownership.ownerOf('D1')).toBe(b.ownership.nodeId);
      expect(c.directory.count()).toBe(1);
      expect(c.directory.countForKey('key:a')).toBe(1);
      harness.stop(c);
    });

    it('adopt takes an epoch above `after` and refuses a live lease or a missing record', async () => {
      const [a, b] = await harness.pair();
      const claim = await a.directory.claim(match('F1'));
      if (!claim.ok) throw new Error('refused');
      expect(await b.ownership.adopt('F1', 0)).toBeUndefined(); // A's lease is live
      expect(await b.ownership.adopt('nope', 0)).toBeUndefined();
      harness.stop(a);
      await expect.poll(() => b.ownership.orphans(), { timeout: harness.lapseMs }).toEqual(['F1']);
      const adopted = await b.ownership.adopt('F1', claim.record.epoch + 500);
      expect(adopted?.epoch).toBeGreaterThan(claim.record.epoch + 500);
    });

    it('a lease taken over while A still runs: A\'s next renewal reports it lost; the others A keeps', async () => {
      const [a, b] = await harness.pair({ pausedA: true });
      const lost: Array<[string, number]> = [];
      a.ownership.onLost((code, epoch) => lost.push([code, epoch]));
      const claim = await a.directory.claim(match('L1'));
      if (!claim.ok) throw new Error('refused');
      const other = await a.directory.claim(match('L2'));
      if (!other.ok) throw new Error('refused');
      await expect.poll(() => b.ownership.orphans(), { timeout: harness.lapseMs }).toEqual(expect.arrayContaining(['L1', 'L2']));
      const adopted = await b.ownership.adopt('L1', claim.record.epoch);
      expect(adopted).toBeDefined();
      await harness.renew(a);
      expect(lost).toEqual([['L1', claim.record.epoch]]);
      expect(a.ownership.owns('L1')).toBe(false);
      // L2 was not adopted: A takes its lease again, with the same epoch.
      expect(a.ownership.owns('L2')).toBe(true);
      expect(await b.ownership.adopt('L2', 0)).toBeUndefined();
      await harness.settle(a);
      expect(a.ownership.ownerOf('L1')).toBe(b.ownership.nodeId);
      expect(a.directory.get('L1')?.epoch).toBe(adopted!.epoch);
      expect(a.directory.get('L2')?.epoch).toBe(other.record.epoch);
    });
    it('outputs leases: an ended match\'s outputs outlive its code; its node lost, one node adopts them with a higher epoch that fences the lost holder; settled, they are no orphan', async () => {
      const [a, b] = await harness.pair();
      const claim = await a.directory.claim(match('O1'));
      if (!claim.ok) throw new Error('refused');
      const epoch = claim.record.epoch;
      const fence: OutputFence = { groupCode: 'O1', epoch, live: true };
      const outA = harness.outbox(a);
      await outA.append(event('O1-x', 1, 'round_started'), fence);
      expect(await a.ownership.holdOutputs('O1-x', epoch)).toBe(true);
      expect(await a.ownership.holdOutputs('O1-y', epoch)).toBe(true);
      expect(a.ownership.outputsLeftMs('O1-x')).toBeGreaterThan(0);
      expect(b.ownership.outputsLeftMs('O1-x')).toBe(0);
      await outA.append(event('O1-x', 2, 'match_ended'), fence);
      a.directory.release('O1', epoch); // the match ended: its code is free for the next one
      await a.ownership.settleOutputs('O1-y'); // every endpoint has that one's events
      expect(await b.ownership.outputOrphans()).toEqual([]);
      expect(await b.ownership.adoptOutputs('O1-x')).toBeUndefined(); // A holds them
      harness.stop(a);
      await expect.poll(() => b.ownership.outputOrphans(), { timeout: harness.lapseMs }).toEqual(['O1-x']);
      const c = await harness.join();
      const [first, second] = await Promise.all([b.ownership.adoptOutputs('O1-x'), c.ownership.adoptOutputs('O1-x')]);
      expect(Number(first !== undefined) + Number(second !== undefined)).toBe(1);
      const adopted = (first ?? second)!;
      expect(adopted).toBeGreaterThan(epoch);
      const [winner, loser] = first !== undefined ? [b, c] : [c, b];
      expect(winner.ownership.outputsLeftMs('O1-x')).toBeGreaterThan(0);
      expect(loser.ownership.outputsLeftMs('O1-x')).toBe(0);
      expect(await b.ownership.outputOrphans()).toEqual([]);
      // A comes back late: its writes and its hold of them are refused.
      await expect(outA.advance('wh_1', 'O1-x', 2, { ...fence, live: false })).rejects.toBeInstanceOf(OutputFencedError);
      expect(await a.ownership.holdOutputs('O1-x', epoch)).toBe(false);
      await harness.outbox(winner).advance('wh_1', 'O1-x', 2, { groupCode: 'O1', epoch: adopted, live: false });
      await winner.ownership.settleOutputs('O1-x');
      expect(winner.ownership.outputsLeftMs('O1-x')).toBe(0);
      expect(await b.ownership.outputOrphans()).toEqual([]);
      harness.stop(c);
    });

    it('outputs leases: a running match\'s outputs go with the match: no outputs orphan while its code has a record; its adopter takes them at its higher epoch, and the old holder\'s renewal reports them lost', async () => {
      const [a, b] = await harness.pair({ pausedA: true });
      const lost: string[] = [];
      a.ownership.onOutputsLost((key) => lost.push(key));
      const claim = await a.directory.claim(match('R1'));
      if (!claim.ok) throw new Error('refused');
      await harness.outbox(a).append(event('R1-x', 1, 'round_started'), { groupCode: 'R1', epoch: claim.record.epoch, live: true });
      expect(await a.ownership.holdOutputs('R1-x', claim.record.epoch)).toBe(true);
      await expect.poll(() => b.ownership.outputOrphans(), { timeout: harness.lapseMs }).toEqual(['R1-x']);
      expect(await b.ownership.adoptOutputs('R1-x')).toBeUndefined(); // the match's own adoption takes them
      await expect.poll(() => b.ownership.orphans(), { timeout: harness.lapseMs }).toEqual(['R1']);
      const adopted = await b.ownership.adopt('R1', claim.record.epoch);
      expect(await b.ownership.holdOutputs('R1-x', adopted!.epoch)).toBe(true);
      // Held, B's outputs fence A at once, before B wrote anything (even a write not checked against the code's lease).
      await expect(harness.outbox(a).advance('wh_1', 'R1-x', 1, { groupCode: 'R1', epoch: claim.record.epoch, live: false })).rejects.toBeInstanceOf(OutputFencedError);
      await harness.renew(a);
      expect(lost).toEqual(['R1-x']);
      expect(a.ownership.outputsLeftMs('R1-x')).toBe(0);
      expect(await a.ownership.holdOutputs('R1-x', claim.record.epoch)).toBe(false);
    });
  });
}

function event(matchKey: string, seq: number, type: string) {
  return { matchKey, seq, order: seq, organizationId: 'org', text: JSON.stringify({ id: `${matchKey}.${seq}`, type }) };
}
