// The FrameBus contract (src/main/ports/frame-bus.ts): every adapter must pass it. A remote
// adapter delivers later: `settle` waits until what was published so far is delivered.
import { describe, expect, it } from 'vitest';
import type { Frame, FrameBus } from '../../../src/main/ports/frame-bus.js';

export interface FrameBusHarness {
  make(): FrameBus | Promise<FrameBus>;
  settle(): Promise<void>;
}

const frame = (groupCode: string, frameNo: number, epoch = 1): Frame => ({ groupCode, frameNo, epoch, wireText: `42["match_data","{\\"n\\":${frameNo}}"]`, deltaText: frameNo > 1 ? 'delta' : null });
const seen = (frames: Frame[]) => frames.map((f) => `${f.groupCode}#${f.frameNo}`);

export function describeFrameBusContract(name: string, harness: FrameBusHarness): void {
  describe(`FrameBus contract: ${name}`, () => {
    it('delivers each frame once, in order, to every subscriber of its code and no other', async () => {
      const bus = await harness.make();
      bus.open('A', 1);
      bus.open('B', 1);
      const a1: Frame[] = [];
      const a2: Frame[] = [];
      const b: Frame[] = [];
      bus.subscribe('A', (f) => a1.push(f));
      bus.subscribe('A', (f) => a2.push(f));
      bus.subscribe('B', (f) => b.push(f));
      for (let n = 1; n <= 3; n++) bus.publish(frame('A', n));
      bus.publish(frame('B', 1));
      await harness.settle();
      expect(seen(a1)).toEqual(['A#1', 'A#2', 'A#3']);
      expect(seen(a2)).toEqual(['A#1', 'A#2', 'A#3']);
      expect(seen(b)).toEqual(['B#1']);
      const got = a1[2];
      expect([got.wireText, got.deltaText, got.epoch]).toEqual([frame('A', 3).wireText, 'delta', 1]);
    });

    it('unsubscribing stops the delivery (twice is harmless)', async () => {
      const bus = await harness.make();
      bus.open('U', 1);
      const got: Frame[] = [];
      const off = bus.subscribe('U', (f) => got.push(f));
      bus.publish(frame('U', 1));
      await harness.settle();
      off();
      off();
      bus.publish(frame('U', 2));
      await harness.settle();
      expect(seen(got)).toEqual(['U#1']);
    });

    it('keeps the latest frame of an open channel, for joiners; a closed channel keeps none', async () => {
      const bus = await harness.make();
      bus.open('L', 1);
      expect(bus.latest('L')).toBeUndefined();
      bus.publish(frame('L', 1));
      bus.publish(frame('L', 2));
      await harness.settle();
      expect(bus.latest('L')?.frameNo).toBe(2);
      bus.end('L');
      await harness.settle();
      expect(bus.latest('L')).toBeUndefined();
      bus.publish(frame('L', 3));
      await harness.settle();
      expect(bus.latest('L')).toBeUndefined();
    });

    it('is fenced: frames of a lower epoch than the channel\'s are dropped', async () => {
      const bus = await harness.make();
      bus.open('F', 2);
      const got: Frame[] = [];
      bus.subscribe('F', (f) => got.push(f));
      bus.publish(frame('F', 7, 1));
      bus.publish(frame('F', 1, 2));
      bus.open('F', 3);
      bus.publish(frame('F', 2, 2));
      bus.publish(frame('F', 1, 3));
      await harness.settle();
      expect(got.map((f) => `${f.frameNo}@${f.epoch}`)).toEqual(['1@2', '1@3']);
      expect(bus.latest('F')?.epoch).toBe(3);
    });

    it('close() ends every channel and subscription (twice is harmless)', async () => {
      const bus = await harness.make();
      bus.open('C', 1);
      const got: Frame[] = [];
      bus.subscribe('C', (f) => got.push(f));
      bus.publish(frame('C', 1));
      await harness.settle();
      bus.close();
      bus.close();
      expect(bus.latest('C')).toBeUndefined();
      bus.publish(frame('C', 2));
      await harness.settle();
      expect(seen(got)).toEqual(['C#1']);
    });
  });
}
