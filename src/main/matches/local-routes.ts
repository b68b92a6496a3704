// The matches this process owns, and how it runs them: group code → the shard thread that holds
// the match (FNV-1a of the code, shards/hash.ts), the owner epoch of its claim (MatchDirectory), the
// player-camera secret of its latest snapshot (memory only: it never leaves the process) and the
// shard's latest dashboard summary. Local by nature: another process neither needs nor sees these.
import type { MatchSummary } from '../../protocol/shard-messages.js';

export interface LocalMatch {
  readonly groupCode: string;
  readonly shard: number;
  readonly epoch: number;
  /** The player-camera secret that travelled beside the latest snapshot ('' when restored from STATE_DIR). */
  camSecret: string;
  /** The number of the last observer or auxiliary payload sent to its shard (matches/match-inputs.ts). */
  inputs: number;
  /** The shard's latest dashboard summary (teams, score, round, phase, map, last event); none before the first. */
  summary?: MatchSummary;
}

export class LocalRoutes {
  private readonly byCode = new Map<string, LocalMatch>();

  add(match: LocalMatch): void {
    this.byCode.set(match.groupCode, match);
  }

  get(groupCode: string): LocalMatch | undefined {
    return this.byCode.get(groupCode);
  }

  delete(groupCode: string): LocalMatch | undefined {
    const match = this.byCode.get(groupCode);
    this.byCode.delete(groupCode);
    return match;
  }

  /** The matches shard `shard` holds. */
  ofShard(shard: number): LocalMatch[] {
    return [...this.byCode.values()].filter((m) => m.shard === shard);
  }

  all(): IterableIterator<LocalMatch> {
    return this.byCode.values();
  }

  /** Their group codes (no array made: read once a second over every match). */
  codes(): IterableIterator<string> {
    return this.byCode.keys();
  }
}
