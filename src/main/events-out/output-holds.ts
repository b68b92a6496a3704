// Shared outbox: what the journal (journal.ts) knows of its holds of the matches' outputs
// (ports/event-outbox.ts `hold`): until when each lasts at least, counted from before the renewal
// that set it (conservative: a node frozen past it finds it run out when it resumes), and the
// matches this node was deposed from (a write or hold refused by the fence: another node holds
// their outputs) with its epoch then.
import type { ClaimedOutputs, EventOutbox, OutputFence } from '../ports/event-outbox.js';
import type { MatchLog } from './match-log.js';

/** What this node knows of the matches it runs (journal.ts's options). */
export interface RunningHere {
  /** This node's epoch for a group code it runs (its route's), undefined when it runs none. */
  epochOf?: (groupCode: string) => number | undefined;
  /** How long this node's lease of the code lasts still, as it knows it (ports/match-ownership.ts). */
  leaseLeftMs?: (groupCode: string) => number;
}

export class OutputHolds {
  /** matchKey → until when (performance.now()) this node's hold lasts at least. */
  private readonly until = new Map<string, number>();
  /** matchKey → this node's epoch when it was deposed from the match's outputs. */
  private readonly deposed = new Map<string, number>();

  constructor(private readonly outbox: EventOutbox, private readonly ttlMs: number, private readonly here: RunningHere, private readonly deposeHere: (matchKey: string) => void) {}

  /**
   * How long this node may still deliver the match's events (ms): a running match's lease left, an
   * ended or claimed one's hold left, as this node knows them. Delivery starts a request only while
   * this is above the request's timeout (delivery.ts).
   */
  outputsLeftMs(match: MatchLog): number {
    if (!match.ended && !match.claimed) return this.here.leaseLeftMs?.(match.groupCode) ?? Infinity;
    return this.leftMs(match.matchKey);
  }

  /** The fence of a cursor move of the match. */
  fenceOf(match: MatchLog): OutputFence {
    return { groupCode: match.groupCode, epoch: this.epochNow(match), live: !match.ended && !match.claimed };
  }

  /** The match's epoch here, raised when this node runs it at a higher one now (re-asserted after Redis lost it: lifecycle.refence). */
  epochNow(match: MatchLog): number {
    const epoch = match.ended ? undefined : this.here.epochOf?.(match.groupCode);
    if (epoch !== undefined && epoch > match.epoch) {
      match.epoch = epoch;
      match.claimed = false;
    }
    return match.epoch;
  }

  /** Holds renewed; the matches whose outputs another node claimed are deposed here (`deposeHere`). */
  async renew(held: readonly ClaimedOutputs[]): Promise<void> {
    const sentAt = performance.now();
    const refused = new Set(await this.outbox.hold(held, this.ttlMs));
    for (const { matchKey } of held) if (!refused.has(matchKey)) this.until.set(matchKey, sentAt + this.ttlMs);
    for (const matchKey of refused) this.deposeHere(matchKey);
  }

  /** This node claimed back a match it holds (its own hold lapsed: a slow renewal): its fence is the claim's epoch now. */
  claimedBack(match: MatchLog, epoch: number, agoMs: number): void {
    if (epoch <= match.epoch) return;
    match.epoch = epoch;
    match.claimed = match.ended;
    this.claimed(match.matchKey, agoMs);
  }

  /** A claim made `agoMs` ago at most: held for the TTL from then. */
  claimed(matchKey: string, agoMs: number): void {
    this.until.set(matchKey, performance.now() + this.ttlMs - agoMs);
  }

  /** How long the hold lasts still (ms), as this node knows it; ≤ 0 when it ran out or there is none. */
  leftMs(matchKey: string): number {
    return (this.until.get(matchKey) ?? 0) - performance.now();
  }

  forget(matchKey: string): void {
    this.until.delete(matchKey);
  }

  depose(matchKey: string, epoch: number): void {
    this.until.delete(matchKey);
    this.deposed.set(matchKey, epoch);
  }

  /** Whether an event of a match run here at `epoch` (undefined: not run here) is one of a deposed run: dropped. A higher epoch (run again here) clears it. */
  isDeposed(matchKey: string, epoch: number | undefined): boolean {
    const at = this.deposed.get(matchKey);
    if (at === undefined) return false;
    if (epoch === undefined || epoch <= at) return true;
    this.deposed.delete(matchKey);
    return false;
  }

  /** The match is taken over here again (an adoption at a higher epoch). */
  reinstate(matchKey: string): void {
    this.deposed.delete(matchKey);
  }
}
