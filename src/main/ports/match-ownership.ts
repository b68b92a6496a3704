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
// Adapter: adapters/redis/match-ownership.ts (it watches the claims of the Redis MatchDirectory of
// the same node). Contract: test/main/ports/match-ownership.contract.ts.
import type { MatchRecord } from './match-directory.js';

export interface MatchOwnership {
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
  adopt(groupCode: string, after: number): Promise<MatchRecord | undefined>;
  /** This node lost the lease of a match it ran (another node holds it now). */
  onLost(listener: (groupCode: string, epoch: number) => void): () => void;
  /** This node re-asserted a match after Redis lost it: the record with its new epoch. */
  onReasserted(listener: (record: MatchRecord) => void): () => void;
  /** Stops renewing the leases (they run out after the TTL; a graceful hand-over deletes them first). */
  close(): void;
}
