// Scale-out: ingestion data for a match that this node does not run goes to the node that does,
// through the match's inbox (ports/owner-inbox.ts). When nobody received it (the owner died and its
// lease has not lapsed yet, or nobody adopted the match yet), the data is held here, in order, and
// this node asks to adopt the match (cluster/takeover.ts); once a node runs it again the held data
// goes there (this node: straight into its shard; another node: through the inbox again). So an
// observer that reconnected to this node after its match's owner was killed loses nothing that
// reached this node: the loss is what the dead owner received after its last snapshot.
//
// In order across a takeover (docs/reliability.md, "The events-cluster loss"): a message sent to the
// inbox before this node adopted the match may be answered (nobody received it) after the adoption,
// when later messages already went straight to the shard: applied last, it would rewind the match.
// So while sends of a code are in flight, a release to this node waits for their answers, and the
// match's messages meanwhile are held behind them (`pending`: routing.ts sends a local match's
// messages here then).
//
// Bounded: at most MAX_HELD messages per match, none older than RECOVERY_WINDOW_MS; past that they
// are dropped and counted (`stats.dropped`).
import type { MainEventBus } from '../base/events.js';
import type { Logger } from '../base/log.js';
import type { RemoteMatches } from '../matches/routing.js';
import type { InboxMessage, OwnerInbox } from '../ports/owner-inbox.js';

/** Messages held for one match whose owner is missing (a minute and a half at an observer's peak 20 msg/s). */
const MAX_HELD = 2000;

interface Held { seq: number; message: InboxMessage; at: number }

export interface OwnerDeliveryDeps {
  inbox: OwnerInbox;
  log: Logger;
  /** `matchOwnerMissing`: nobody runs the match now (cluster/takeover.ts adopts it or learns who does). */
  events: MainEventBus;
  /** RECOVERY_WINDOW_MS: nothing older is kept (its client could not resume a session that old either). */
  maxAgeMs: number;
}

export class OwnerDelivery implements RemoteMatches {
  readonly stats = { sent: 0, held: 0, dropped: 0, redelivered: 0 };
  private seq = 0;
  /** Codes whose owner is missing: their messages in send order. */
  private readonly held = new Map<string, Held[]>();
  /** Sends to the inbox not answered yet, per code. */
  private readonly inFlight = new Map<string, number>();
  /** Codes adopted here whose release waits for their sends in flight: where the held messages go then. */
  private readonly releaseTo = new Map<string, (message: InboxMessage) => void>();
  private readonly log: Logger;

  constructor(private readonly deps: OwnerDeliveryDeps) {
    this.log = deps.log.child({ module: 'cluster' });
  }

  send(groupCode: string, message: InboxMessage): boolean {
    const seq = ++this.seq;
    const queue = this.held.get(groupCode);
    const at = Date.now();
    if (queue || this.releaseTo.has(groupCode)) {
      this.hold(groupCode, { seq, message, at });
      return true;
    }
    this.stats.sent++;
    this.inFlight.set(groupCode, (this.inFlight.get(groupCode) ?? 0) + 1);
    this.deps.inbox.send(groupCode, message).then(
      (receivers) => { if (receivers === 0) this.hold(groupCode, { seq, message, at }); },
      () => { this.stats.dropped++; }, // Redis unreachable: counted; the observer's resume re-sends nothing, so this is the documented loss
    ).finally(() => this.answered(groupCode));
    return true;
  }

  /** Whether the code's messages must go through here although it runs on this node: sends in flight, or held ones (routing.ts). */
  pending(groupCode: string): boolean {
    return this.held.has(groupCode) || (this.inFlight.get(groupCode) ?? 0) > 0;
  }

  /** One send answered: the last one of a code adopted here releases what waited behind them. */
  private answered(groupCode: string): void {
    const n = (this.inFlight.get(groupCode) ?? 1) - 1;
    if (n > 0) return void this.inFlight.set(groupCode, n);
    this.inFlight.delete(groupCode);
    const deliver = this.releaseTo.get(groupCode);
    if (!deliver) return;
    this.releaseTo.delete(groupCode);
    this.release(groupCode, deliver);
  }

  /** Codes with held messages (the takeover loop retries these first). */
  waiting(): string[] {
    return [...this.held.keys()];
  }

  /**
   * The match runs somewhere again: the held messages are handed to `deliver` in order (this node
   * adopted it: its own shard) or, without `deliver`, sent to the inbox again.
   */
  release(groupCode: string, deliver?: (message: InboxMessage) => void): void {
    if (deliver && (this.inFlight.get(groupCode) ?? 0) > 0) {
      // Sends of this code are unanswered: they may come back unreceived, and must go first.
      this.releaseTo.set(groupCode, deliver);
      return;
    }
    const queue = this.held.get(groupCode);
    if (!queue) return;
    this.held.delete(groupCode);
    this.stats.redelivered += queue.length;
    this.log.info({ groupCode, messages: queue.length, to: deliver ? 'this node' : 'the owner' }, 'held ingestion data delivered');
    for (const { message } of queue) {
      if (deliver) deliver(message);
      else this.send(groupCode, message);
    }
  }

  /** The match is gone: whatever was held for it is dropped. */
  forget(groupCode: string): void {
    this.releaseTo.delete(groupCode);
    const queue = this.held.get(groupCode);
    if (!queue) return;
    this.held.delete(groupCode);
    this.stats.dropped += queue.length;
  }

  private hold(groupCode: string, item: Held): void {
    let queue = this.held.get(groupCode);
    if (!queue) {
      queue = [];
      this.held.set(groupCode, queue);
      this.log.warn({ groupCode }, 'no node runs this match now: its ingestion data is held until one does');
      this.deps.events.emit('matchOwnerMissing', { groupCode });
    }
    while (queue.length > 0 && item.at - queue[0].at > this.deps.maxAgeMs) {
      queue.shift();
      this.stats.dropped++;
    }
    if (queue.length >= MAX_HELD) {
      this.stats.dropped++;
      return;
    }
    this.stats.held++;
    // Replies to earlier sends can come after later messages were held: keep send order.
    let i = queue.length;
    while (i > 0 && queue[i - 1].seq > item.seq) i--;
    queue.splice(i, 0, item);
  }
}
