// Shared outbox: what the journal (journal.ts) knows of its ownership of the matches' outputs
// (docs/reliability.md, "One owner of a match's outputs"). A match's outputs are held through
// MatchOwnership: a running match's by its group code's lease, and every match's (running or ended,
// until every endpoint has its events) by its outputs lease, one per match instance
// (matches/match-ownership.ts `OutputLeases`), taken at this node's epoch for the match when the
// journal first has it and renewed by the ownership adapter with the leases. Here: how long this
// node may still deliver a match, the fence of its writes, and the matches this node was deposed
// from (a write or a renewal refused: another node holds their outputs) with its epoch then.
import type { Logger } from '../base/log.js';
import type { OutputFence } from './event-outbox.js';
import type { OutputLeases } from '../matches/index.js';
import type { MatchLog } from './match-log.js';

/** A hold that Redis did not answer is tried again after this long (while the match is here). */
const RETRY_HOLD_MS = 1000;

/** What this node knows of the matches it runs (journal.ts's options). */
export interface RunningHere {
  /** This node's epoch for a group code it runs (its route's), undefined when it runs none. */
  epochOf?: (groupCode: string) => number | undefined;
  /** How long this node's lease of the code lasts still, as it knows it (matches/match-ownership.ts). */
  leaseLeftMs?: (groupCode: string) => number;
  /** The leases of the matches' outputs (MatchOwnership), with a shared outbox. */
  outputs?: OutputLeases;
}

export class OutputOwner {
  /** matchKey → this node's epoch when it was deposed from the match's outputs. */
  private readonly deposed = new Map<string, number>();

  constructor(private readonly here: RunningHere, private readonly log: Logger, private readonly matchOf: (matchKey: string) => MatchLog | undefined,
    private readonly deposeHere: (matchKey: string) => void) {}

  /**
   * This node holds the match's outputs at `epoch` from now on: false when they are held at a
   * higher epoch elsewhere (it was deposed), undefined when Redis did not answer (tried again while
   * the match is here, at its epoch then).
   */
  async take(matchKey: string, epoch: number): Promise<boolean | undefined> {
    if (!this.here.outputs) return true;
    try {
      return await this.here.outputs.holdOutputs(matchKey, epoch);
    } catch (err) {
      this.log.warn({ matchKey, error: (err as Error).message }, 'event journal: outputs lease not taken (retrying)');
      setTimeout(() => {
        const match = this.matchOf(matchKey);
        if (match) void this.hold(match);
      }, RETRY_HOLD_MS).unref();
      return undefined;
    }
  }

  /** The match's outputs held at its epoch now (a higher one than before): refused, it is deposed here. */
  async hold(match: MatchLog): Promise<void> {
    const epoch = match.epoch;
    if (await this.take(match.matchKey, epoch) === false && this.matchOf(match.matchKey)?.epoch === epoch) this.deposeHere(match.matchKey);
  }

  /**
   * How long this node may still deliver the match's events (ms): a running match's lease left, an
   * ended or adopted one's outputs lease left, as this node knows them. Delivery starts a request
   * only while this is above the request's timeout (delivery.ts).
   */
  outputsLeftMs(match: MatchLog): number {
    if (!match.ended && !match.claimed) return this.here.leaseLeftMs?.(match.groupCode) ?? Infinity;
    return this.here.outputs?.outputsLeftMs(match.matchKey) ?? Infinity;
  }

  /** The fence of a cursor move of the match. */
  fenceOf(match: MatchLog): OutputFence {
    return { groupCode: match.groupCode, epoch: this.epochNow(match), live: !match.ended && !match.claimed };
  }

  /** The match's epoch here, raised when this node runs it at a higher one now (re-asserted after Redis lost it: lifecycle.refence). */
  epochNow(match: MatchLog): number {
    const epoch = match.ended ? undefined : this.here.epochOf?.(match.groupCode);
    if (epoch !== undefined && epoch > match.epoch) this.raise(match, epoch, false);
    return match.epoch;
  }

  /** The match is held here at a higher epoch now (run again here, or its outputs adopted: `claimed`): its outputs lease follows. */
  raise(match: MatchLog, epoch: number, claimed: boolean): void {
    match.epoch = epoch;
    match.claimed = claimed;
    void this.hold(match);
  }

  depose(matchKey: string, epoch: number): void {
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
