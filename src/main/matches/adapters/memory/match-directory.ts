// MatchDirectory in memory (matches/match-directory.ts): the records by group code, the match-id
// index and the per-key counts (matches/directory-view.ts). Every claim is one synchronous step
// (atomic in this process); epochs come from one counter, so a later claim of any code has a
// higher epoch.
import type { Claim, ClaimOptions, MatchDirectory, DirectoryRecord, NewMatch } from '../../match-directory.js';
import { DirectoryView, type DirectoryEntry } from '../../directory-view.js';

const NO_PLAYERS: ReadonlySet<string> = new Set();

export class MemoryMatchDirectory extends DirectoryView implements MatchDirectory {
  private lastEpoch = 0;

  async claim(match: NewMatch, options: ClaimOptions = {}): Promise<Claim> {
    return this.claimNow(match, options);
  }

  /** `claim` in one synchronous step. */
  claimNow(match: NewMatch, options: ClaimOptions = {}): Claim {
    const live = this.byCode.get(match.groupCode);
    if (live) return { ok: false, reason: 'taken', record: live };
    const limits = options.limits;
    if (limits && this.count() >= limits.maxLive) return { ok: false, reason: 'capacity' };
    if (limits && this.countForKey(match.keyId) >= limits.maxPerKey) return { ok: false, reason: 'key_capacity' };
    this.lastEpoch = Math.max(this.lastEpoch, options.after ?? 0) + 1;
    const entry: DirectoryEntry = { ...match, matchId: match.matchId ?? '', playerIds: NO_PLAYERS, epoch: this.lastEpoch };
    this.index(entry);
    return { ok: true, record: entry };
  }

  release(groupCode: string, epoch: number): DirectoryRecord | undefined {
    const entry = this.byCode.get(groupCode);
    if (!entry || entry.epoch !== epoch) return undefined;
    return this.unindex(groupCode);
  }

  setMatchId(groupCode: string, matchId: string): void {
    const entry = this.unindex(groupCode);
    if (!entry) return;
    entry.matchId = matchId;
    this.index(entry);
  }

  setRoster(groupCode: string, playerIds: readonly string[]): void {
    const entry = this.byCode.get(groupCode);
    if (entry) entry.playerIds = new Set(playerIds);
  }

  setSecretDigest(groupCode: string, digest: string): boolean {
    const entry = this.byCode.get(groupCode);
    if (!entry) return false;
    entry.secretDigest = digest;
    return true;
  }

  /** Nothing to stop: the directory is this object. */
  close(): void {}
}
