// ControlBus on Redis (control/control-bus.ts): every message is PUBLISHed as JSON on
// keys.controlChannel, and every bus (on every node, the publishing one included) subscribes to
// it. Redis delivers a channel's messages to every subscriber in one order (the order it received
// the PUBLISHes; one node's publishes go in order over its one command connection).
//
// `publish` resolves once the message came back to this bus's own subscription: by then every
// listener of this bus (this process) has run it, as with the memory adapter, whose delivery is
// synchronous (a force-end waiting for `match_removed` sees the local removal before it goes on).
// When Redis takes the message but it does not come back within `deliveryTimeoutMs` (the
// subscriber connection is reconnecting), publish resolves anyway: the message was handed to the
// transport. It rejects when Redis is unreachable (nothing was published). A listener that throws
// is logged; unlike in memory, the exception does not reach the publisher (it runs elsewhere).
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../base/log.js';
import type { ControlBus, ControlListener, ControlMessage } from '../../control-bus.js';
import type { RedisConnection } from '../../../redis/connection.js';

export interface RedisControlBusOptions {
  log: Logger;
  /** How long publish waits for its message to come back (default: REDIS_TIMEOUT_MS-like 2000). */
  deliveryTimeoutMs?: number;
}

interface Envelope { from: string; seq: number; message: ControlMessage }

const TYPES = new Set(['force_end', 'match_removed', 'secret_rotated', 'rehearsal', 'rehearsal_answer', 'observer_swap', 'standby_watch']);

export class RedisControlBus implements ControlBus {
  /** Resolves once Redis confirmed this bus's subscription (publish waits for it). */
  readonly ready: Promise<void>;
  private readonly log: Logger;
  /** This bus's own id: several buses may share one connection (and node id). */
  private readonly self = randomUUID();
  private readonly subscription: Promise<void> & { unsubscribe: () => void };
  private readonly pending = new Map<number, () => void>();
  private listeners: readonly ControlListener[] = [];
  private seq = 0;
  private closed = false;

  constructor(private readonly conn: RedisConnection, private readonly options: RedisControlBusOptions) {
    this.log = options.log.child({ module: 'control-bus' });
    this.subscription = conn.subscribe(conn.keys.controlChannel, (raw) => this.receive(raw));
    this.ready = this.subscription;
  }

  /** A bus whose subscription is confirmed. */
  static async open(conn: RedisConnection, options: RedisControlBusOptions): Promise<RedisControlBus> {
    const bus = new RedisControlBus(conn, options);
    await bus.ready;
    return bus;
  }

  async publish(message: ControlMessage): Promise<void> {
    await this.ready;
    if (this.closed) throw new Error('control bus closed');
    const seq = ++this.seq;
    const envelope: Envelope = { from: this.self, seq, message };
    let timer: NodeJS.Timeout | undefined;
    const delivered = new Promise<void>((resolve) => {
      this.pending.set(seq, resolve);
      timer = setTimeout(() => {
        if (!this.pending.delete(seq)) return;
        this.log.warn({ t: message.t }, 'control message published but not seen back in time');
        resolve();
      }, this.options.deliveryTimeoutMs ?? 2000);
      timer.unref();
    });
    const sent = await this.conn.publish(this.conn.keys.controlChannel, JSON.stringify(envelope));
    if (!sent) {
      clearTimeout(timer);
      this.pending.delete(seq);
      throw new Error(`control message ${message.t} not published: Redis unreachable`);
    }
    await delivered;
    clearTimeout(timer);
  }

  subscribe(listener: ControlListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => { this.listeners = this.listeners.filter((l) => l !== listener); };
  }

  /** Unsubscribes this bus (the connection stays: the composition root's); publishes waiting resolve. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.listeners = [];
    this.subscription.unsubscribe();
    for (const resolve of this.pending.values()) resolve();
    this.pending.clear();
  }

  private receive(raw: Buffer): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(raw.toString()) as Envelope;
      if (!envelope || typeof envelope !== 'object' || !envelope.message || !TYPES.has(envelope.message.t)) throw new Error('not a control message');
    } catch (err) {
      this.log.warn({ error: (err as Error).message }, 'control message dropped');
      return;
    }
    for (const listener of this.listeners) {
      try {
        listener(envelope.message);
      } catch (err) {
        this.log.error({ t: envelope.message.t, error: (err as Error).message }, 'control listener failed');
      }
    }
    if (envelope.from === this.self) {
      const resolve = this.pending.get(envelope.seq);
      if (resolve) {
        this.pending.delete(envelope.seq);
        resolve();
      }
    }
  }
}
