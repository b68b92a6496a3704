// ControlBus in memory (control/control-bus.ts): delivery is a synchronous call into every
// subscriber, in subscription order, before publish returns (as the components called each other
// before there was a bus); an exception in a subscriber reaches the publisher.
import type { ControlBus, ControlListener, ControlMessage } from '../../control-bus.js';

export class MemoryControlBus implements ControlBus {
  private listeners: readonly ControlListener[] = [];

  publish(message: ControlMessage): Promise<void> {
    for (const listener of this.listeners) listener(message);
    return Promise.resolve();
  }

  subscribe(listener: ControlListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => { this.listeners = this.listeners.filter((l) => l !== listener); };
  }

  close(): void {
    this.listeners = [];
  }
}
