// FrameBus in memory (frames/frame-bus.ts): publishing is a direct call into the subscribers of the
// frame's code (two map lookups per frame), and the latest frame of each open channel is kept, with
// its text once its maker published it (FrameText) when it came without.
import type { Frame, FrameBus, FrameListener, FrameText, FrameTextListener, FrameTextSource } from '../../frame-bus.js';
import { FrameListeners } from '../../frame-listeners.js';

interface Channel { epoch: number; latest: Frame | undefined; latestText: string | null }

export class MemoryFrameBus implements FrameBus {
  private readonly channels = new Map<string, Channel>();
  private readonly listeners = new FrameListeners();
  private textSource: FrameTextSource | null = null;

  open(groupCode: string, epoch: number): void {
    const channel = this.channels.get(groupCode);
    if (!channel) this.channels.set(groupCode, { epoch, latest: undefined, latestText: null });
    else if (epoch > channel.epoch) channel.epoch = epoch;
  }

  publish(frame: Frame, delta: string | null): void {
    const channel = this.channels.get(frame.groupCode);
    if (channel) {
      if (frame.epoch < channel.epoch) return; // a stale owner's frame
      channel.latest = frame;
      channel.latestText = frame.frameText;
    }
    this.listeners.deliver(frame, delta);
  }

  subscribe(groupCode: string, listener: FrameListener, onText?: FrameTextListener): () => void {
    return this.listeners.add(groupCode, listener, undefined, onText);
  }

  latest(groupCode: string): Frame | undefined {
    return this.channels.get(groupCode)?.latest;
  }

  askFrameText(frame: Frame): string | null {
    if (frame.frameText !== null) return frame.frameText;
    const channel = this.channels.get(frame.groupCode);
    if (channel?.latest === frame && channel.latestText !== null) return channel.latestText;
    this.textSource?.ask(frame);
    return null;
  }

  frameTextUsed(frame: Frame, continuous: boolean): void {
    this.textSource?.used(frame, continuous);
  }

  publishFrameText(text: FrameText): void {
    const channel = this.channels.get(text.groupCode);
    if (channel?.latest?.frameNo === text.frameNo) channel.latestText ??= text.frameText;
    this.listeners.deliverText(text);
  }

  setFrameTextSource(source: FrameTextSource): void {
    this.textSource = source;
  }

  end(groupCode: string): void {
    this.channels.delete(groupCode);
  }

  /** One process owns every match: never called with a live owner elsewhere (frames/frame-bus.ts). */
  disown(groupCode: string): void {
    this.channels.delete(groupCode);
  }

  close(): void {
    this.channels.clear();
    this.listeners.clear();
  }
}
