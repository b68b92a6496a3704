// The OwnerInbox contract (src/main/matches/owner-inbox.ts): every adapter must pass it. An inbox only
// exists between nodes: the harness gives two inboxes on one store (the sender's and the owner's).
import { describe, expect, it } from 'vitest';
import type { InboxMessage, OwnerInbox } from '../../../src/main/matches/owner-inbox.js';
import { closedAfterEach } from '../ports/opened-stores.js';

export interface OwnerInboxHarness {
  /** Two nodes' inboxes on one store: [sender, owner]. */
  pair(): Promise<[OwnerInbox, OwnerInbox]>;
  /** Until the owner's `listen` calls so far are in effect (Redis: the subscription is confirmed). */
  settle(owner: OwnerInbox): Promise<void>;
}

/** Messages of every kind, with empty and non-ASCII fields (the adapters' encodings must carry them). */
export const INBOX_MESSAGES: InboxMessage[] = [
  { t: 'obs', raw: '{"type":"heartbeat","data":1}' },
  { t: 'aux', matchId: 'm:1', playerId: 'p1', raw: '{"type":"ability_info","data":{"x":"é ✓ 12:3"}}' },
  { t: 'aux_disconnected', matchId: 'm:1', playerId: '7:pl' },
  { t: 'aux', matchId: '', playerId: '', raw: '' },
  { t: 'obs', raw: '' },
  { t: 'obs', raw: 'R' },
  { t: 'obs', raw: '{"type":"killfeed","data":{}}', seat: 'standby' },
  { t: 'obs', raw: 's', seat: 'standby' },
  // Who forwarded it (matches/owner-delivery.ts): node ids may hold ':' and digits.
  { t: 'obs', raw: '{"type":"score","data":{}}', via: 'node-b:17' },
  { t: 'obs', raw: 'v', seat: 'standby', via: 'n:1:2' },
  { t: 'aux', matchId: 'm:2', playerId: 'p2', raw: '{"x":1}', via: 'node-a:9007199254740991' },
];

export function describeOwnerInboxContract(name: string, harness: OwnerInboxHarness): void {
  describe(`OwnerInbox contract: ${name}`, () => {
    const track = closedAfterEach<OwnerInbox>();
    const pair = async () => (await harness.pair()).map(track) as [OwnerInbox, OwnerInbox];

    it('delivers what another node sends for a code to its listener, as sent and in order; send counts the receivers', async () => {
      const [sender, owner] = await pair();
      const got: InboxMessage[] = [];
      owner.listen('G1', (m) => got.push(m));
      await harness.settle(owner);
      const sent: InboxMessage[] = [];
      for (let i = 0; i < 60; i++) sent.push(INBOX_MESSAGES[i % INBOX_MESSAGES.length]);
      const answers = await Promise.all(sent.map((m) => sender.send('G1', [m])));
      expect(answers.every((n) => n === 1)).toBe(true);
      await expect.poll(() => got.length).toBe(sent.length);
      expect(got).toEqual(sent);
    });

    it('one send of several messages delivers them all, in order, among single sends', async () => {
      const [sender, owner] = await pair();
      const got: InboxMessage[] = [];
      owner.listen('G6', (m) => got.push(m));
      await harness.settle(owner);
      expect(await sender.send('G6', [INBOX_MESSAGES[0]])).toBe(1);
      expect(await sender.send('G6', INBOX_MESSAGES)).toBe(1);
      expect(await sender.send('G6', [INBOX_MESSAGES[1]])).toBe(1);
      await expect.poll(() => got.length).toBe(INBOX_MESSAGES.length + 2);
      expect(got).toEqual([INBOX_MESSAGES[0], ...INBOX_MESSAGES, INBOX_MESSAGES[1]]);
    });

    it('nobody listens to a code: send answers 0 and nothing is delivered elsewhere', async () => {
      const [sender, owner] = await pair();
      const got: InboxMessage[] = [];
      owner.listen('G2', (m) => got.push(m));
      await harness.settle(owner);
      expect(await sender.send('NOBODY', [INBOX_MESSAGES[0]])).toBe(0);
      expect(await sender.send('G2', [INBOX_MESSAGES[1]])).toBe(1);
      await expect.poll(() => got).toEqual([INBOX_MESSAGES[1]]);
    });

    it('every listener of a code gets each message; one that left gets nothing more; the last one leaving ends the inbox', async () => {
      const [sender, owner] = await pair();
      const a: InboxMessage[] = [];
      const b: InboxMessage[] = [];
      const offA = owner.listen('G3', (m) => a.push(m));
      const offB = owner.listen('G3', (m) => b.push(m));
      await harness.settle(owner);
      expect(await sender.send('G3', [INBOX_MESSAGES[0]])).toBe(1); // one node, whatever its listeners
      await expect.poll(() => b.length).toBe(1);
      offA();
      offA(); // twice: no effect
      expect(await sender.send('G3', [INBOX_MESSAGES[2]])).toBe(1);
      await expect.poll(() => b.length).toBe(2);
      expect(a).toEqual([INBOX_MESSAGES[0]]);
      expect(b).toEqual([INBOX_MESSAGES[0], INBOX_MESSAGES[2]]);
      offB();
      await expect.poll(() => sender.send('G3', [INBOX_MESSAGES[0]])).toBe(0);
    });

    it('a listener that throws does not stop the others', async () => {
      const [sender, owner] = await pair();
      const got: InboxMessage[] = [];
      owner.listen('G4', () => { throw new Error('listener failed'); });
      owner.listen('G4', (m) => got.push(m));
      await harness.settle(owner);
      await sender.send('G4', [INBOX_MESSAGES[0]]);
      await sender.send('G4', [INBOX_MESSAGES[1]]);
      await expect.poll(() => got).toEqual([INBOX_MESSAGES[0], INBOX_MESSAGES[1]]);
    });

    it('after close: the owner listens no more, and the closed inbox sends nothing', async () => {
      const [sender, owner] = await pair();
      owner.listen('G5', () => undefined);
      await harness.settle(owner);
      expect(await sender.send('G5', [INBOX_MESSAGES[0]])).toBe(1);
      owner.close();
      await expect.poll(() => sender.send('G5', [INBOX_MESSAGES[0]])).toBe(0);
      await expect(owner.send('G5', [INBOX_MESSAGES[0]])).rejects.toThrow();
    });
  });
}
