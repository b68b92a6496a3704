// MatchOwnership: which node runs each live match, when several nodes share one directory (Redis).
// Only the shared adapter has it: in one process every live match is this process's.
//
// A node owns a match through a lease on its group code (Redis: SET NX PX REDIS_LEASE_TTL_MS,
// taken in the claim script) that the adapter renews every third of the TTL with a compare-and-set
// script, for every code this node claimed or adopted and has not released. A node that stops
// renewing (killed, partitioned, paused longer than the TTL) loses its leases: its matches become
// orphans (record live, no lease), which any node may adopt, from the match's latest snapshot, with
// a new epoch above max(epoch counter, the snapshot's epoch) (the fencing token: the old owner's
// frames and snapshots are refused from then on).
//
// Redis restarted empty (no persistence) or failed over without the keys: on its next renewal the
// adapter finds its lease and record gone and re-asserts them (a claim without limits, `after` the
// old epoch: a new epoch), and reports it (`onReasserted`) so the node fences with the new epoch.
// A renewal that finds another node's lease reports the match lost (`onLost`): the node stops
// running it at once (no final frame, no completion: the new owner carries on).
// A match instance's outputs (its events not yet every webhook endpoint's, its cursors, its record:
// docs/events.md) have a lease of their own under the same ownership (`OutputLeases`): taken by the
// node that runs the match (at the match's epoch) or adopts it, renewed with the group leases, given
// up when every endpoint has the match's events. A match that ended with events undelivered outlives
// its group code's lease (the code may start another match meanwhile): when its node is lost, its
// outputs lease lapses and one node adopts them (`adoptOutputs`, a new epoch: no snapshot is
// needed, the outbox has the events). The higher epoch always wins: a node that adopts the match
// itself (a higher epoch) takes its outputs lease over in the same step.
// Adapter: matches/adapters/redis/match-ownership.ts (it watches the claims of the Redis MatchDirectory of
// the same node). Contract: test/main/matches/match-ownership.contract.ts.
import type { DirectoryRecord } from './match-directory.js';

/** The leases of the matches' outputs, one per match instance (matchKey), beside the group codes' leases. */
export interface OutputLeases {
  /**
   * This node holds the match's outputs at `epoch` (its epoch for the match) from now on, renewed
   * with its leases: false when they are held at a higher epoch (another node took them over).
   */
  holdOutputs(matchKey: string, epoch: number): Promise<boolean>;
  /** How long this node's outputs lease of the match lasts still (ms), as it knows it, counted like leaseLeftMs (0 when it holds none). */
  outputsLeftMs(matchKey: string): number;
  /** Matches whose outputs are unsettled and whose lease lapsed (their node is gone). */
  outputOrphans(): Promise<string[]>;
  /**
   * Takes an orphan's outputs over: this node's outputs lease with a new epoch (fencing the lost
   * holder's writes), or undefined when they are held, settled, or belong to a running match whose
   * group code has a lease or a record (that match's adoption takes them with it). Atomic.
   */
  adoptOutputs(matchKey: string): Promise<number | undefined>;
  /** Every endpoint has the match's events: its outputs lease goes (while it is still this node's). */
  settleOutputs(matchKey: string): Promise<void>;
  /** A renewal found the match's outputs held at a higher epoch elsewhere: this node was deposed from them. */
  onOutputsLost(listener: (matchKey: string) => void): () => void;
}

export interface MatchOwnership extends OutputLeases {
  /** This node's id (NODE_ID). */
  readonly nodeId: string;
  /** Whether this node holds the code's lease, as far as it knows. */
  owns(groupCode: string): boolean;
  /**
   * How long this node's lease of the code lasts still (ms), as this node knows it, conservatively:
   * counted from before the claim, adoption or renewal that set it (0 when it holds none). A node
   * frozen past its lease finds it run out here when it resumes, before any renewal answers.
   */
  leaseLeftMs(groupCode: string): number;
  /** The node that holds the code's lease, as last seen (admin rows); undefined when none. */
  ownerOf(groupCode: string): string | undefined;
  /** Group codes with a live record and no lease: their owner is gone. */
  orphans(): Promise<string[]>;
  /**
   * Takes an orphan over: this node's lease and a new epoch above max(counter, `after`), the
   * record updated with it. Undefined (nothing changes) when the code has a live lease or no record.
   * Atomic: of two nodes adopting one code, exactly one gets it.
   */
  adopt(groupCode: string, after: number): Promise<DirectoryRecord | undefined>;
  /** This node lost the lease of a match it ran (another node holds it now). */
  onLost(listener: (groupCode: string, epoch: number) => void): () => void;
  /** This node re-asserted a match after Redis lost it: the record with its new epoch. */
  onReasserted(listener: (record: DirectoryRecord) => void): () => void;
  /** Stops renewing the leases (they run out after the TTL; a graceful hand-over deletes them first). */
  close(): void;
}
