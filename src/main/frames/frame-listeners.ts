// A process's frame listeners by group code, as both FrameBus adapters keep them: delivery is a
// direct call per listener (the per-frame path), and the lists are replaced, never mutated, so a
// delivery in progress is not disturbed by a subscription or an unsubscription. Beside them, the
// listeners of the code's frame texts (FrameText messages, frames/frame-bus.ts), kept apart so that
// the per-frame path never looks at them.
import type { Frame, FrameListener, FrameText, FrameTextListener } from './frame-bus.js';

export class FrameListeners {
  private readonly byCode = new Map<string, readonly FrameListener[]>();
  private readonly textsByCode = new Map<string, readonly FrameTextListener[]>();

  /** `frame` and its delta to every listener of its code; a listener that throws is reported to `onError` (the others still get it). */
  deliver(frame: Frame, delta: string | null, onError?: (err: unknown) => void): void {
    const listeners = this.byCode.get(frame.groupCode);
    if (!listeners) return;
    if (!onError) {
      for (let i = 0; i < listeners.length; i++) listeners[i](frame, delta);
      return;
    }
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i](frame, delta);
      } catch (err) {
        onError(err);
      }
    }
  }

  /** A frame's text to every text listener of its code. */
  deliverText(text: FrameText): void {
    const listeners = this.textsByCode.get(text.groupCode);
    if (listeners) for (const listener of listeners) listener(text);
  }

  /** Adds a listener (and a text listener); `onChange` runs after this and after the returned removal. */
  add(groupCode: string, listener: FrameListener, onChange?: () => void, onText?: FrameTextListener): () => void {
    this.byCode.set(groupCode, [...(this.byCode.get(groupCode) ?? []), listener]);
    if (onText) this.textsByCode.set(groupCode, [...(this.textsByCode.get(groupCode) ?? []), onText]);
    onChange?.();
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      without(this.byCode, groupCode, listener);
      if (onText) without(this.textsByCode, groupCode, onText);
      onChange?.();
    };
  }

  has(groupCode: string): boolean {
    return this.byCode.has(groupCode);
  }

  clear(): void {
    this.byCode.clear();
    this.textsByCode.clear();
  }
}

function without<L>(map: Map<string, readonly L[]>, groupCode: string, listener: L): void {
  const rest = (map.get(groupCode) ?? []).filter((l) => l !== listener);
  if (rest.length > 0) map.set(groupCode, rest);
  else map.delete(groupCode);
}
