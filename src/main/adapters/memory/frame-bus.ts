// FrameBus in memory (ports/frame-bus.ts): publishing is a direct call into the subscribers of the
// frame's code (two map lookups per frame), and the latest frame of each open channel is kept.
import type { Frame, FrameBus, FrameListener } from '../../ports/frame-bus.js';
import { FrameListeners } from '../frame-listeners.js';

interface Channel { epoch: number; latest: Frame | undefined }

export class MemoryFrameBus implements FrameBus {
  private readonly channels = new Map<string, Channel>();
  private readonly listeners = new FrameListeners();

  open(groupCode: string, epoch: number): void {
    const channel = this.channels.get(groupCode);
    if (!channel) this.channels.set(groupCode, { epoch, latest: undefined });
    else if (epoch > channel.epoch) channel.epoch = epoch;
  }

  publish(frame: Frame): void {
    const channel = this.channels.get(frame.groupCode);
    if (channel) {
      if (frame.epoch < channel.epoch) return; // a stale owner's frame
      channel.latest = frame;
    }
    this.listeners.deliver(frame);
  }

  subscribe(groupCode: string, listener: FrameListener): () => void {
    return this.listeners.add(groupCode, listener);
  }

  latest(groupCode: string): Frame | undefined {
    return this.channels.get(groupCode)?.latest;
  }

  end(groupCode: string): void {
    this.channels.delete(groupCode);
  }

  /** One process owns every match: never called with a live owner elsewhere (ports/frame-bus.ts). */
  disown(groupCode: string): void {
    this.channels.delete(groupCode);
  }

  close(): void {
    this.channels.clear();
    this.listeners.clear();
  }
}
