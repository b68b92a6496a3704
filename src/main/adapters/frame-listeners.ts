// A process's frame listeners by group code, as both FrameBus adapters keep them: delivery is a
// direct call per listener (the per-frame path), and the lists are replaced, never mutated, so a
// delivery in progress is not disturbed by a subscription or an unsubscription.
import type { Frame, FrameListener } from '../ports/frame-bus.js';

export class FrameListeners {
  private readonly byCode = new Map<string, readonly FrameListener[]>();

  /** `frame` to every listener of its code; a listener that throws is reported to `onError` (the others still get it). */
  deliver(frame: Frame, onError?: (err: unknown) => void): void {
    const listeners = this.byCode.get(frame.groupCode);
    if (!listeners) return;
    if (!onError) {
      for (let i = 0; i < listeners.length; i++) listeners[i](frame);
      return;
    }
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i](frame);
      } catch (err) {
        onError(err);
      }
    }
  }

  /** Adds a listener; `onChange` runs after this and after the returned removal. */
  add(groupCode: string, listener: FrameListener, onChange?: () => void): () => void {
    this.byCode.set(groupCode, [...(this.byCode.get(groupCode) ?? []), listener]);
    onChange?.();
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      const rest = (this.byCode.get(groupCode) ?? []).filter((l) => l !== listener);
      if (rest.length > 0) this.byCode.set(groupCode, rest);
      else this.byCode.delete(groupCode);
      onChange?.();
    };
  }

  has(groupCode: string): boolean {
    return this.byCode.has(groupCode);
  }

  clear(): void {
    this.byCode.clear();
  }
}
