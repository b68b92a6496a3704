// Scale-out: ingestion data for a match that this node does not run goes to the node that does,
// through the match's inbox (matches/owner-inbox.ts). When nobody received it (the owner died and its
// lease has not lapsed yet, or nobody adopted the match yet), the data is held here, in order, and
// this node asks to adopt the match (matches/takeover.ts); once a node runs it again the held data
// goes there (this node: straight into its shard; another node: through the inbox again). So an
// observer that reconnected to this node after its match's owner was killed loses nothing that
// reached this node: the loss is what the dead owner received after its last snapshot.
//
// A message Redis certainly did not take (not connected: a failover under way, an outage) is not one
// nobody received: it is kept in send order and sent again every RESEND_MS (counted `redelivered`).
// One in flight when the connection closed may have been published: it is not sent again (a
// duplicate would apply it twice) but counted dropped.
//
// In order across a takeover (docs/reliability.md, "The events-cluster loss"): a message sent to the
// inbox before this node adopted the match may be answered (nobody received it) after the adoption,
// when later messages already went straight to the shard: applied last, it would rewind the match.
// So while sends of a code are in flight (or wait to be sent again), a release to this node waits for
// them, and the match's messages meanwhile are held behind them (`pending`: routing.ts sends a local
// match's messages here then).
//
// Bounded: at most `maxHeld` messages per match (held, again not yet taken, or kept in case the owner
// stalled; twice an ingestion socket's backlog, so that an observer and its standby flushing what they
// buffered fit), none older than RECOVERY_WINDOW_MS; past that they are dropped and counted
// (`stats.dropped`).
//
// Forwarded to a frozen owner (docs/reliability.md): an owner that stalls (a pause, SIGSTOP) still
// counts as a receiver, so what this node forwards to it meanwhile sits unread in its socket, and is
// refused by the input log once a successor holds the match. So every payload sent here carries
// `via` (this node and its send number, matches/owner-inbox.ts), which the owner's input log and the
// match's snapshots keep, and is kept here for `retainMs` (two leases and a snapshot interval: the
// time a stalled owner's match takes to be adopted). When this node adopts the match, the payloads it
// forwarded that neither the snapshot nor the logged inputs after it hold (`lastForwarded`) are
// applied first, in order, then the held ones. (Adopted by a third node, they are not: that node
// does not have them; a cluster of two, or the observer's own node adopting, is the case covered.)
import type { MainEventBus } from '../base/events.js';
import type { Logger } from '../base/log.js';
import type { RemoteMatches } from './routing.js';
import type { LoggedInput } from './input-log.js';
import { InboxNotSent, type InboxMessage, type OwnerInbox } from './owner-inbox.js';
import { snapshotMeta } from '../shards/snapshot-meta.js';

interface Held { seq: number; message: InboxMessage; at: number }

/** How often messages Redis did not take are sent again (ioredis reconnects within a second). */
const RESEND_MS = 500;

export interface OwnerDeliveryDeps {
  inbox: OwnerInbox;
  log: Logger;
  /** `matchOwnerMissing`: nobody runs the match now (matches/takeover.ts adopts it or learns who does). */
  events: MainEventBus;
  /** RECOVERY_WINDOW_MS: nothing older is kept (its client could not resume a session that old either). */
  maxAgeMs: number;
  /** This node's id (NODE_ID): the `via` of what it forwards. */
  nodeId: string;
  /** How long a forwarded payload is kept in case its owner stalled (two leases and a snapshot interval). */
  retainMs: number;
  /** Messages held, or kept, per match (see the top of this file). */
  maxHeld: number;
}

/**
 * The send number of the last payload `nodeId` forwarded that a match rebuilt from `snapshotText`
 * and the inputs `logged` after it holds (0: none): the node re-applies what it forwarded after that.
 */
export function lastForwarded(nodeId: string, snapshotText: string, logged: readonly LoggedInput[]): number {
  let last = snapshotMeta(snapshotText)?.forwarded[nodeId] ?? 0;
  const prefix = `${nodeId}:`;
  for (const input of logged) {
    if (input.via?.startsWith(prefix) && !input.via.includes(':', prefix.length)) last = Math.max(last, Number(input.via.slice(prefix.length)) || 0);
  }
  return last;
}

export class OwnerDelivery implements RemoteMatches {
  readonly stats = { sent: 0, held: 0, dropped: 0, redelivered: 0 };
  private seq = 0;
  /** Codes whose owner is missing: their messages in send order. */
  private readonly held = new Map<string, Held[]>();
  /** Codes with messages Redis did not take (unreachable): their messages in send order, sent again. */
  private readonly unsent = new Map<string, { queue: Held[]; inFlight: number }>();
  private resendTimer: NodeJS.Timeout | null = null;
  /** Sends to the inbox not answered yet, per code. */
  private readonly inFlight = new Map<string, number>();
  /** Codes adopted here whose release waits for their sends in flight: where the held messages go then, and the last forwarded one the match holds. */
  private readonly releaseTo = new Map<string, { deliver: (message: InboxMessage) => void; applied?: number }>();
  /** Per code, what this node forwarded in the last `retainMs` (in send order), in case its owner stalled. */
  private readonly retained = new Map<string, Held[]>();
  private readonly sweepTimer: NodeJS.Timeout;
  /** Queues whose drop was logged (once each). */
  private readonly dropLogged = new WeakSet<Held[]>();
  private readonly log: Logger;

  constructor(private readonly deps: OwnerDeliveryDeps) {
    this.log = deps.log.child({ module: 'cluster' });
    this.sweepTimer = setInterval(() => this.sweepRetained(Date.now()), deps.retainMs);
    this.sweepTimer.unref();
  }

  send(groupCode: string, original: InboxMessage): boolean {
    const seq = ++this.seq;
    const message: InboxMessage = original.t === 'aux_disconnected' ? original : { ...original, via: `${this.deps.nodeId}:${seq}` };
    const queue = this.held.get(groupCode);
    const at = Date.now();
    const item = { seq, message, at };
    if (queue || this.releaseTo.has(groupCode)) {
      this.hold(groupCode, item);
      return true;
    }
    this.stats.sent++;
    if (this.unsent.has(groupCode)) this.queueUnsent(groupCode, item);
    else this.publish(groupCode, item);
    return true;
  }

  private publish(groupCode: string, item: Held, resent = false): void {
    this.inFlight.set(groupCode, (this.inFlight.get(groupCode) ?? 0) + 1);
    // Kept until a takeover's reckoning, whatever the answer: `via` tells then whether the match got it.
    if (item.message.t !== 'aux_disconnected') this.retain(groupCode, item);
    this.deps.inbox.send(groupCode, item.message).then((receivers) => {
      if (resent) this.resent(groupCode, true);
      if (receivers === 0) {
        this.unretain(groupCode, item); // nobody got it: held instead
        this.hold(groupCode, item);
      }
    }, (err) => {
      // Redis did not take it (unreachable, a failover): not "nobody runs the match"; sent again, in
      // order. Unless it may have gone out (in flight as the connection closed): a duplicate would
      // apply it twice (a kill counted twice), so it is counted dropped (and stays kept: a takeover
      // here applies it if the match does not hold it).
      if (err instanceof InboxNotSent) {
        this.unretain(groupCode, item);
        this.queueUnsent(groupCode, item);
      } else this.stats.dropped++;
      if (resent) this.resent(groupCode, false);
    }).finally(() => this.answered(groupCode));
  }

  /** Whether the code's messages must go through here although it runs on this node: sends in flight or to resend, or held ones (routing.ts). */
  pending(groupCode: string): boolean {
    return this.held.has(groupCode) || this.unsent.has(groupCode) || (this.inFlight.get(groupCode) ?? 0) > 0;
  }

  /** One send answered: the last one of a code adopted here (none left to resend) releases what waited behind them. */
  private answered(groupCode: string): void {
    const n = (this.inFlight.get(groupCode) ?? 1) - 1;
    if (n > 0) return void this.inFlight.set(groupCode, n);
    this.inFlight.delete(groupCode);
    this.releaseWaiting(groupCode);
  }

  /** A code adopted here whose sends are all answered and none waits to be sent again: its held messages go to its shard. */
  private releaseWaiting(groupCode: string): void {
    const waiting = this.releaseTo.get(groupCode);
    if (!waiting || this.unsent.has(groupCode) || this.inFlight.has(groupCode)) return;
    this.releaseTo.delete(groupCode);
    this.release(groupCode, waiting.deliver, waiting.applied);
  }

  /** Keeps a forwarded payload for `retainMs` (and at most `maxHeld` per code). */
  private retain(groupCode: string, item: Held): void {
    let list = this.retained.get(groupCode);
    if (!list) this.retained.set(groupCode, (list = []));
    while (list.length > 0 && item.at - list[0].at > this.deps.retainMs) list.shift();
    if (list.length >= this.deps.maxHeld) {
      list.shift(); // lost only if its owner stalled: logged once per list
      if (!this.dropLogged.has(list)) {
        this.dropLogged.add(list);
        this.log.warn({ groupCode, kept: list.length, maxHeld: this.deps.maxHeld }, 'forwarded data kept for a takeover dropped: its bound is reached');
      }
    }
    list.push(item);
  }

  /** A kept payload that did not reach an owner after all (held or to be sent again instead). */
  private unretain(groupCode: string, item: Held): void {
    const list = this.retained.get(groupCode);
    const i = list ? list.lastIndexOf(item) : -1;
    if (i >= 0) list!.splice(i, 1);
  }

  private sweepRetained(now: number): void {
    for (const [code, list] of this.retained) {
      while (list.length > 0 && now - list[0].at > this.deps.retainMs) list.shift();
      if (list.length === 0) this.retained.delete(code);
    }
  }

  /**
   * A message Redis did not take: kept in send order (same bounds as held ones). While a code has
   * such messages, or a resend of them is in flight, its new messages queue behind them.
   */
  private queueUnsent(groupCode: string, item: Held): void {
    let entry = this.unsent.get(groupCode);
    if (!entry) {
      entry = { queue: [], inFlight: 0 };
      this.unsent.set(groupCode, entry);
    }
    if (!this.bounded(groupCode, entry.queue, item)) return;
    this.insert(entry.queue, item);
    if (entry.inFlight === 0) this.armResend();
  }

  /** Every RESEND_MS the queued messages of each code not already resending go out, in order. */
  private armResend(): void {
    if (this.resendTimer) return;
    this.resendTimer = setTimeout(() => {
      this.resendTimer = null;
      for (const [code, entry] of this.unsent) {
        if (entry.inFlight > 0 || entry.queue.length === 0) continue;
        const items = entry.queue.splice(0);
        entry.inFlight = items.length;
        for (const it of items) {
          if (this.held.has(code) || this.releaseTo.has(code)) {
            this.hold(code, it);
            this.resent(code, true);
          } else this.publish(code, it, true);
        }
      }
    }, RESEND_MS);
    this.resendTimer.unref();
  }

  /** One resent message answered: once none is in flight, the code goes back to direct sends (or waits for the next resend). */
  private resent(groupCode: string, ok: boolean): void {
    const entry = this.unsent.get(groupCode);
    if (!entry) return;
    if (ok) this.stats.redelivered++;
    if (--entry.inFlight > 0) return;
    if (entry.queue.length > 0) return this.armResend();
    this.unsent.delete(groupCode);
    this.releaseWaiting(groupCode);
  }

  /** Codes with held messages (the takeover loop retries these first). */
  waiting(): string[] {
    return [...this.held.keys()];
  }

  /**
   * The match runs somewhere again: the held messages are handed to `deliver` in order (this node
   * adopted it: its own shard) or, without `deliver`, sent to the inbox again. `applied` (this node
   * adopted it from a snapshot and its input log): the send number of the last payload this node
   * forwarded that the rebuilt match holds; the ones forwarded after it that the old owner never
   * applied go first (see the top of this file).
   */
  release(groupCode: string, deliver?: (message: InboxMessage) => void, applied?: number): void {
    if (deliver && ((this.inFlight.get(groupCode) ?? 0) > 0 || this.unsent.has(groupCode))) {
      // Sends of this code are unanswered (or wait to be sent again): they may come back unreceived, and must go first.
      this.releaseTo.set(groupCode, applied === undefined ? { deliver } : { deliver, applied });
      return;
    }
    const held = this.held.get(groupCode) ?? [];
    this.held.delete(groupCode);
    const retained = this.retained.get(groupCode) ?? [];
    if (deliver) this.retained.delete(groupCode);
    // Forwarded to the old owner and never applied: before the held ones (all in send order).
    const lost = deliver && applied !== undefined ? retained.filter((r) => r.seq > applied && !held.some((h) => h.seq === r.seq)) : [];
    if (held.length === 0 && lost.length === 0) return;
    const queue = lost.length === 0 ? held : [...lost, ...held].sort((a, b) => a.seq - b.seq);
    this.stats.redelivered += queue.length;
    this.log.info({ groupCode, messages: queue.length, unapplied: lost.length, to: deliver ? 'this node' : 'the owner' }, 'held ingestion data delivered');
    for (const { message } of queue) {
      if (deliver) deliver(message);
      else this.send(groupCode, message);
    }
  }

  /** Stops the sweep of kept payloads (shutdown). */
  close(): void {
    clearInterval(this.sweepTimer);
  }

  /** The match is gone: whatever was held or kept for it is dropped. */
  forget(groupCode: string): void {
    this.releaseTo.delete(groupCode);
    this.retained.delete(groupCode);
    const queue = this.held.get(groupCode);
    if (queue) this.stats.dropped += queue.length;
    this.held.delete(groupCode);
    const unsent = this.unsent.get(groupCode);
    if (unsent) this.stats.dropped += unsent.queue.length;
    this.unsent.delete(groupCode);
  }

  private hold(groupCode: string, item: Held): void {
    let queue = this.held.get(groupCode);
    if (!queue) {
      queue = [];
      this.held.set(groupCode, queue);
      this.log.warn({ groupCode }, 'no node runs this match now: its ingestion data is held until one does');
      this.deps.events.emit('matchOwnerMissing', { groupCode });
    }
    if (!this.bounded(groupCode, queue, item)) return;
    this.stats.held++;
    this.insert(queue, item);
  }

  /** Drops what is older than maxAgeMs; false (counted dropped) when the queue is full. Logged once per code and queue. */
  private bounded(groupCode: string, queue: Held[], item: Held): boolean {
    const before = this.stats.dropped;
    while (queue.length > 0 && item.at - queue[0].at > this.deps.maxAgeMs) {
      queue.shift();
      this.stats.dropped++;
    }
    const fits = queue.length < this.deps.maxHeld;
    if (!fits) this.stats.dropped++;
    if (this.stats.dropped > before && !this.dropLogged.has(queue)) {
      this.dropLogged.add(queue);
      this.log.warn({ groupCode, held: queue.length, maxHeld: this.deps.maxHeld, maxAgeMs: this.deps.maxAgeMs }, 'held ingestion data dropped: its bound is reached');
    }
    return fits;
  }

  /** Replies to earlier sends can come after later messages were queued: keep send order. */
  private insert(queue: Held[], item: Held): void {
    let i = queue.length;
    while (i > 0 && queue[i - 1].seq > item.seq) i--;
    queue.splice(i, 0, item);
  }
}
