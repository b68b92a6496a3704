// The FrameBus contract (src/main/frames/frame-bus.ts): every adapter must pass it. A remote
// adapter delivers later: `settle` waits until what was published so far is delivered.
import { describe, expect, it } from 'vitest';
import type { Frame, FrameBus, FrameText, FrameTextSource } from '../../../src/main/frames/frame-bus.js';

export interface FrameBusHarness {
  make(): FrameBus | Promise<FrameBus>;
  settle(): Promise<void>;
}

const textOf = (frameNo: number) => `42["match_data","{\\"n\\":${frameNo}}"]`;
const frame = (groupCode: string, frameNo: number, epoch = 1): Frame => ({ groupCode, frameNo, epoch, frameText: textOf(frameNo) });
/** A frame and its delta, as its owner publishes them. */
const pub = (groupCode: string, frameNo: number, epoch = 1): [Frame, string | null] => [frame(groupCode, frameNo, epoch), frameNo > 1 ? 'delta' : null];
const seen = (frames: Frame[]) => frames.map((f) => `${f.groupCode}#${f.frameNo}`);

/** A published frame is a value: the compiler refuses to change it (npm run typecheck). */
export function publishedFramesAreReadOnly(frame: Frame): void {
  // @ts-expect-error a Frame's fields are read-only
  frame.frameText = null;
}

export function describeFrameBusContract(name: string, harness: FrameBusHarness): void {
  describe(`FrameBus contract: ${name}`, () => {
    it('delivers each frame once, in order, to every subscriber of its code and no other', async () => {
      const bus = await harness.make();
      bus.open('A', 1);
      bus.open('B', 1);
      const a1: Frame[] = [];
      const a2: Frame[] = [];
      const b: Frame[] = [];
      const deltas: (string | null)[] = [];
      bus.subscribe('A', (f, delta) => { a1.push(f); deltas.push(delta); });
      bus.subscribe('A', (f) => a2.push(f));
      bus.subscribe('B', (f) => b.push(f));
      for (let n = 1; n <= 3; n++) bus.publish(...pub('A', n));
      bus.publish(...pub('B', 1));
      await harness.settle();
      expect(seen(a1)).toEqual(['A#1', 'A#2', 'A#3']);
      expect(seen(a2)).toEqual(['A#1', 'A#2', 'A#3']);
      expect(seen(b)).toEqual(['B#1']);
      const got = a1[2];
      expect([got.frameText, deltas[2], got.epoch]).toEqual([frame('A', 3).frameText, 'delta', 1]);
    });

    it('unsubscribing stops the delivery (twice is harmless)', async () => {
      const bus = await harness.make();
      bus.open('U', 1);
      const got: Frame[] = [];
      const off = bus.subscribe('U', (f) => got.push(f));
      bus.publish(...pub('U', 1));
      await harness.settle();
      off();
      off();
      bus.publish(...pub('U', 2));
      await harness.settle();
      expect(seen(got)).toEqual(['U#1']);
    });

    it('keeps the latest frame of an open channel, for joiners; a closed channel keeps none', async () => {
      const bus = await harness.make();
      bus.open('L', 1);
      expect(bus.latest('L')).toBeUndefined();
      bus.publish(...pub('L', 1));
      bus.publish(...pub('L', 2));
      await harness.settle();
      expect(bus.latest('L')?.frameNo).toBe(2);
      bus.end('L');
      await harness.settle();
      expect(bus.latest('L')).toBeUndefined();
      bus.publish(...pub('L', 3));
      await harness.settle();
      expect(bus.latest('L')).toBeUndefined();
    });

    it('is fenced: frames of a lower epoch than the channel\'s are dropped', async () => {
      const bus = await harness.make();
      bus.open('F', 2);
      const got: Frame[] = [];
      bus.subscribe('F', (f) => got.push(f));
      bus.publish(...pub('F', 7, 1));
      bus.publish(...pub('F', 1, 2));
      bus.open('F', 3);
      bus.publish(...pub('F', 2, 2));
      bus.publish(...pub('F', 1, 3));
      await harness.settle();
      expect(got.map((f) => `${f.frameNo}@${f.epoch}`)).toEqual(['1@2', '1@3']);
      expect(bus.latest('F')?.epoch).toBe(3);
    });

    it('a frame published without its text: asked for, its FrameText comes to the text listeners and is kept with the latest frame', async () => {
      const bus = await harness.make();
      const asked: Frame[] = [];
      const used: string[] = [];
      const source: FrameTextSource = { ask: (f) => asked.push(f), used: (f, continuous) => used.push(`${f.frameNo}:${continuous}`) };
      bus.setFrameTextSource(source);
      bus.open('T', 1);
      const texts: FrameText[] = [];
      const got: Frame[] = [];
      bus.subscribe('T', (f) => got.push(f), (t) => texts.push(t));
      const bare: Frame = { groupCode: 'T', frameNo: 1, epoch: 1, frameText: null };
      bus.publish(bare, 'delta'); // (a frame without its text always has a delta)
      await harness.settle();
      expect(got).toHaveLength(1);
      expect(bus.askFrameText(got[0])).toBeNull(); // not here: its source is asked
      expect(asked.map((f) => f.frameNo)).toEqual([1]);
      bus.publishFrameText({ groupCode: 'T', frameNo: 1, frameText: textOf(1) });
      await harness.settle();
      expect(texts).toEqual([{ groupCode: 'T', frameNo: 1, frameText: textOf(1) }]);
      expect(bare.frameText).toBeNull(); // the published frame stays as it was
      expect(bus.askFrameText(bus.latest('T')!)).toBe(textOf(1)); // kept with the latest: no second ask
      expect(asked).toHaveLength(1);
      bus.frameTextUsed(bus.latest('T')!, true);
      expect(used).toEqual(['1:true']);
      // A frame with its text answers at once.
      bus.publish(frame('T', 2), 'delta');
      await harness.settle();
      expect(bus.askFrameText(bus.latest('T')!)).toBe(textOf(2));
      expect(asked).toHaveLength(1);
    });

    it('close() ends every channel and subscription (twice is harmless)', async () => {
      const bus = await harness.make();
      bus.open('C', 1);
      const got: Frame[] = [];
      bus.subscribe('C', (f) => got.push(f));
      bus.publish(...pub('C', 1));
      await harness.settle();
      bus.close();
      bus.close();
      expect(bus.latest('C')).toBeUndefined();
      bus.publish(...pub('C', 2));
      await harness.settle();
      expect(seen(got)).toEqual(['C#1']);
    });
  });
}
