// Scale-out: ingestion data for a match that this node does not run goes to the node that does,
// through the match's inbox (matches/owner-inbox.ts). When nobody received it (the owner died and its
// lease has not lapsed yet, or nobody adopted the match yet), the data is held here, in order, and
// this node asks to adopt the match (matches/takeover.ts); once a node runs it again the held data
// goes there (this node: straight into its shard; another node: through the inbox again). So an
// observer that reconnected to this node after its match's owner was killed loses nothing that
// reached this node: the loss is what the dead owner received after its last snapshot.
//
// One lane per code, one send in flight per lane (docs/reliability.md, "The sentinel-failover-move
// failures"): what a code's messages meet is decided for them in send order. While a send is
// unanswered, the messages after it wait in the lane and go out together as the next send (one
// SPUBLISH of a batch, so a burst costs one round trip per batch, not one per message). Sent in a
// pipeline instead, an owner whose inbox subscriber blinked (a Redis failover) missed the first
// ones (answered "nobody", held) and got the later ones once it was back: applied out of order.
//
// A send Redis certainly did not take (not connected: a failover under way, an outage) is not one
// nobody received: the lane sends it again after RESEND_MS (counted `redelivered`). One in flight
// when the connection closed may have been published: it is not sent again (a duplicate would apply
// it twice) but counted dropped (and kept: a takeover here applies it if the match does not hold it).
//
// In order across a takeover (docs/reliability.md, "The events-cluster loss"): a send unanswered when
// this node adopts the match may still come back "nobody": the release to this node waits for the
// answer, and the match's messages meanwhile wait in the lane behind it (`pending`: routing.ts sends
// a local match's messages here then).
//
// Bounded: at most `maxHeld` messages per match (waiting in its lane, or kept in case the owner
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

interface Item { seq: number; message: InboxMessage; at: number }

/**
 * A code's messages not yet taken by an owner, in send order. `sending`: the batch whose send is
 * unanswered (it left `queue`). `held`: nobody runs the match (the last send was answered "nobody"):
 * nothing goes out until a release. `retryTimer`: Redis did not take the last send; sent again then.
 */
interface Lane {
  queue: Item[];
  sending: Item[] | null;
  held: boolean;
  retryTimer: NodeJS.Timeout | null;
  /** Adopted here while a send was unanswered: where the lane goes once it is answered. */
  releaseTo?: { deliver: (message: InboxMessage) => void; applied?: number };
}

/** How long a send Redis did not take waits before it goes again (ioredis reconnects within a second). */
const RESEND_MS = 500;
/** At most this many messages in one send (a burst after a reconnection goes in a few round trips). */
const MAX_BATCH = 64;

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
  private readonly lanes = new Map<string, Lane>();
  /** Per code, what this node forwarded in the last `retainMs` (in send order), in case its owner stalled. */
  private readonly retained = new Map<string, Item[]>();
  private readonly sweepTimer: NodeJS.Timeout;
  /** Lanes (or kept lists) whose drop was logged (once each). */
  private readonly dropLogged = new WeakSet<object>();
  private readonly log: Logger;

  constructor(private readonly deps: OwnerDeliveryDeps) {
    this.log = deps.log.child({ module: 'cluster' });
    this.sweepTimer = setInterval(() => this.sweepRetained(Date.now()), deps.retainMs);
    this.sweepTimer.unref();
  }

  send(groupCode: string, original: InboxMessage): boolean {
    const seq = ++this.seq;
    const message: InboxMessage = original.t === 'aux_disconnected' ? original : { ...original, via: `${this.deps.nodeId}:${seq}` };
    let lane = this.lanes.get(groupCode);
    if (!lane) this.lanes.set(groupCode, (lane = { queue: [], sending: null, held: false, retryTimer: null }));
    const item = { seq, message, at: Date.now() };
    if (!this.bounded(groupCode, lane, item)) return true;
    lane.queue.push(item);
    if (lane.held) this.stats.held++;
    this.pump(groupCode, lane);
    return true;
  }

  /** Whether the code's messages must go through here although it runs on this node: a lane not yet emptied (routing.ts). */
  pending(groupCode: string): boolean {
    return this.lanes.has(groupCode);
  }

  /** Codes whose messages are held (the takeover loop retries these first). */
  waiting(): string[] {
    const codes: string[] = [];
    for (const [code, lane] of this.lanes) if (lane.held) codes.push(code);
    return codes;
  }

  /**
   * The match runs somewhere again: the lane's messages are handed to `deliver` in order (this node
   * adopted it: its own shard) or, without `deliver`, sent to the inbox again. `applied` (this node
   * adopted it from a snapshot and its input log): the send number of the last payload this node
   * forwarded that the rebuilt match holds; the ones forwarded after it that the old owner never
   * applied go first (see the top of this file).
   */
  release(groupCode: string, deliver?: (message: InboxMessage) => void, applied?: number): void {
    const lane = this.lanes.get(groupCode);
    if (!deliver) {
      if (!lane?.held) return;
      lane.held = false;
      this.log.info({ groupCode, messages: lane.queue.length, unapplied: 0, to: 'the owner' }, 'held ingestion data delivered');
      this.stats.redelivered += lane.queue.length;
      return this.pump(groupCode, lane);
    }
    if (lane?.sending) {
      // A send of this code is unanswered: it may come back "nobody", and must go first.
      lane.releaseTo = applied === undefined ? { deliver } : { deliver, applied };
      return;
    }
    this.deliverHere(groupCode, lane, deliver, applied);
  }

  /** Stops the sweep of kept payloads and the lanes' resends (shutdown). */
  close(): void {
    clearInterval(this.sweepTimer);
    for (const lane of this.lanes.values()) if (lane.retryTimer) clearTimeout(lane.retryTimer);
  }

  /** The match is gone: whatever was held or kept for it is dropped. */
  forget(groupCode: string): void {
    this.retained.delete(groupCode);
    const lane = this.lanes.get(groupCode);
    if (!lane) return;
    this.lanes.delete(groupCode);
    if (lane.retryTimer) clearTimeout(lane.retryTimer);
    this.stats.dropped += lane.queue.length + (lane.sending?.length ?? 0);
  }

  /** Sends the lane's next batch unless one is unanswered, it is held or waits to be sent again; an emptied lane goes. */
  private pump(groupCode: string, lane: Lane): void {
    if (lane.sending || lane.held || lane.retryTimer) return;
    if (lane.queue.length === 0) {
      if (this.lanes.get(groupCode) === lane) this.lanes.delete(groupCode);
      return;
    }
    const batch = lane.queue.splice(0, MAX_BATCH);
    lane.sending = batch;
    this.stats.sent += batch.length;
    this.deps.inbox.send(groupCode, batch.map((it) => it.message)).then(
      (receivers) => this.answered(groupCode, lane, batch, receivers > 0 ? 'taken' : 'nobody'),
      // Redis did not take it (unreachable, a failover): not "nobody runs the match"; sent again, in
      // order. Unless it may have gone out (in flight as the connection closed): a duplicate would
      // apply it twice (a kill counted twice), so it is counted dropped (and kept: a takeover here
      // applies it if the match does not hold it).
      (err) => this.answered(groupCode, lane, batch, err instanceof InboxNotSent ? 'not-sent' : 'unknown'),
    );
  }

  private answered(groupCode: string, lane: Lane, batch: Item[], outcome: 'taken' | 'nobody' | 'not-sent' | 'unknown'): void {
    lane.sending = null;
    if (this.lanes.get(groupCode) !== lane) return; // forgotten meanwhile
    if (outcome === 'taken' || outcome === 'unknown') {
      // Kept until a takeover's reckoning: `via` tells then whether the match got it.
      for (const it of batch) if (it.message.t !== 'aux_disconnected') this.retain(groupCode, it);
      if (outcome === 'unknown') this.stats.dropped += batch.length;
    } else {
      lane.queue.unshift(...batch); // back at the head, in order
      if (outcome === 'nobody' && !lane.releaseTo) this.hold(groupCode, lane);
      else if (outcome === 'not-sent' && !lane.releaseTo) {
        lane.retryTimer = setTimeout(() => {
          lane.retryTimer = null;
          this.stats.redelivered += Math.min(lane.queue.length, MAX_BATCH);
          this.pump(groupCode, lane);
        }, RESEND_MS);
        lane.retryTimer.unref();
      }
    }
    const waiting = lane.releaseTo;
    if (waiting) this.deliverHere(groupCode, lane, waiting.deliver, waiting.applied);
    else this.pump(groupCode, lane);
  }

  /** Adopted here: what this node forwarded that the match does not hold, then the lane, to the shard in order. */
  private deliverHere(groupCode: string, lane: Lane | undefined, deliver: (message: InboxMessage) => void, applied: number | undefined): void {
    if (lane) {
      this.lanes.delete(groupCode);
      if (lane.retryTimer) clearTimeout(lane.retryTimer);
    }
    const queue = lane?.queue ?? [];
    const retained = this.retained.get(groupCode) ?? [];
    this.retained.delete(groupCode);
    // Forwarded to the old owner and never applied: before the waiting ones (all in send order).
    const lost = applied !== undefined ? retained.filter((r) => r.seq > applied) : [];
    if (queue.length === 0 && lost.length === 0) return;
    const all = lost.length === 0 ? queue : [...lost, ...queue].sort((a, b) => a.seq - b.seq);
    this.stats.redelivered += all.length;
    this.log.info({ groupCode, messages: all.length, unapplied: lost.length, to: 'this node' }, 'held ingestion data delivered');
    for (const { message } of all) deliver(message);
  }

  /** Keeps a forwarded payload for `retainMs` (and at most `maxHeld` per code). */
  private retain(groupCode: string, item: Item): void {
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

  private sweepRetained(now: number): void {
    for (const [code, list] of this.retained) {
      while (list.length > 0 && now - list[0].at > this.deps.retainMs) list.shift();
      if (list.length === 0) this.retained.delete(code);
    }
  }

  private hold(groupCode: string, lane: Lane): void {
    lane.held = true;
    this.stats.held += lane.queue.length;
    this.log.warn({ groupCode }, 'no node runs this match now: its ingestion data is held until one does');
    this.deps.events.emit('matchOwnerMissing', { groupCode });
  }

  /** Drops what is older than maxAgeMs; false (counted dropped) when the lane is full. Logged once per lane. */
  private bounded(groupCode: string, lane: Lane, item: Item): boolean {
    const before = this.stats.dropped;
    const queue = lane.queue;
    while (queue.length > 0 && item.at - queue[0].at > this.deps.maxAgeMs) {
      queue.shift();
      this.stats.dropped++;
    }
    const fits = queue.length + (lane.sending?.length ?? 0) < this.deps.maxHeld;
    if (!fits) this.stats.dropped++;
    if (this.stats.dropped > before && !this.dropLogged.has(lane)) {
      this.dropLogged.add(lane);
      this.log.warn({ groupCode, held: queue.length, maxHeld: this.deps.maxHeld, maxAgeMs: this.deps.maxAgeMs }, 'held ingestion data dropped: its bound is reached');
    }
    return fits;
  }
}
