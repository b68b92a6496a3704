// The main thread's typed event bus (src/main/base/events.ts): synchronous, in subscription order.
import { describe, expect, it } from 'vitest';
import { EventBus } from '../../src/main/base/events.js';

describe('EventBus', () => {
  it('calls the listeners of an event synchronously, in subscription order; unsubscribed ones no more', () => {
    const bus = new EventBus<{ a: { n: number }; b: string }>();
    const calls: string[] = [];
    const off1 = bus.on('a', ({ n }) => calls.push(`1:${n}`));
    bus.on('a', ({ n }) => calls.push(`2:${n}`));
    bus.on('b', (s) => calls.push(`b:${s}`));
    bus.emit('a', { n: 1 });
    expect(calls).toEqual(['1:1', '2:1']);
    off1();
    bus.emit('a', { n: 2 });
    bus.emit('b', 'x');
    expect(calls).toEqual(['1:1', '2:1', '2:2', 'b:x']);
  });

  it('a listener added while an event is emitted gets the next one only', () => {
    const bus = new EventBus<{ a: number }>();
    const calls: number[] = [];
    bus.on('a', (n) => { calls.push(n); if (n === 1) bus.on('a', (m) => calls.push(m * 10)); });
    bus.emit('a', 1);
    bus.emit('a', 2);
    expect(calls).toEqual([1, 2, 20]);
  });
});
