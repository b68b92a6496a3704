// FrameBus in memory (ports/frame-bus.ts): publishing is a direct call into the subscribers of the
// frame's code (two map lookups per frame), and the latest frame of each open channel is kept.
import type { FramePacket } from '../../frame-packet.js';
import type { FrameBus, FrameListener } from '../../ports/frame-bus.js';

interface Channel { epoch: number; latest: FramePacket | undefined }

export class MemoryFrameBus implements FrameBus {
  private readonly channels = new Map<string, Channel>();
  /** Listeners per code; replaced, never mutated, so a publish in progress is not disturbed. */
  private readonly listeners = new Map<string, readonly FrameListener[]>();

  open(groupCode: string, epoch: number): void {
    const channel = this.channels.get(groupCode);
    if (!channel) this.channels.set(groupCode, { epoch, latest: undefined });
    else if (epoch > channel.epoch) channel.epoch = epoch;
  }

  publish(frame: FramePacket): void {
    const channel = this.channels.get(frame.groupCode);
    if (channel) {
      if (frame.epoch < channel.epoch) return; // a stale owner's frame
      channel.latest = frame;
    }
    const listeners = this.listeners.get(frame.groupCode);
    if (listeners) for (let i = 0; i < listeners.length; i++) listeners[i](frame);
  }

  subscribe(groupCode: string, listener: FrameListener): () => void {
    this.listeners.set(groupCode, [...(this.listeners.get(groupCode) ?? []), listener]);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      const rest = (this.listeners.get(groupCode) ?? []).filter((l) => l !== listener);
      if (rest.length > 0) this.listeners.set(groupCode, rest);
      else this.listeners.delete(groupCode);
    };
  }

  latest(groupCode: string): FramePacket | undefined {
    return this.channels.get(groupCode)?.latest;
  }

  close(groupCode: string): void {
    this.channels.delete(groupCode);
  }

  /** One process owns every match: never called with a live owner elsewhere (ports/frame-bus.ts). */
  disown(groupCode: string): void {
    this.channels.delete(groupCode);
  }
}
