// The ControlBus contract (src/main/control/control-bus.ts): every adapter must pass it.
import { describe, expect, it } from 'vitest';
import type { ControlBus, ControlMessage } from '../../../src/main/control/control-bus.js';

export interface ControlBusHarness {
  make(): ControlBus | Promise<ControlBus>;
  /** Until what was published so far is delivered (memory: at once). */
  settle(): Promise<void>;
}

const messages: ControlMessage[] = [
  { t: 'force_end', groupCode: 'G1' },
  { t: 'match_removed', groupCode: 'G1', matchId: 'm', reason: 'admin', sessionIds: ['s1', 's2'] },
  { t: 'secret_rotated', groupCode: 'G2', sessionIds: [] },
];

export function describeControlBusContract(name: string, harness: ControlBusHarness): void {
  describe(`ControlBus contract: ${name}`, () => {
    it('delivers every message to every subscriber, in publish order, as published', async () => {
      const bus = await harness.make();
      const a: ControlMessage[] = [];
      const b: ControlMessage[] = [];
      bus.subscribe((m) => a.push(m));
      bus.subscribe((m) => b.push(m));
      for (const m of messages) await bus.publish(m);
      await harness.settle();
      expect(a).toEqual(messages);
      expect(b).toEqual(messages);
      bus.close();
    });

    it('a subscriber that left gets nothing more', async () => {
      const bus = await harness.make();
      const got: ControlMessage[] = [];
      const off = bus.subscribe((m) => got.push(m));
      await bus.publish(messages[0]);
      await harness.settle();
      off();
      await bus.publish(messages[1]);
      await harness.settle();
      expect(got).toEqual([messages[0]]);
      bus.close();
    });
  });
}
