// MatchDirectory in memory (ports/match-directory.ts): the records by group code, the match-id
// index and the per-key counts. Every claim is one synchronous step (atomic in this process);
// epochs come from one counter, so a later claim of any code has a higher epoch.
import type { Claim, ClaimOptions, MatchDirectory, MatchRecord, NewMatch } from '../../ports/match-directory.js';

type Entry = { -readonly [K in keyof MatchRecord]: MatchRecord[K] };

const NO_PLAYERS: ReadonlySet<string> = new Set();

export class MemoryMatchDirectory implements MatchDirectory {
  private readonly byCode = new Map<string, Entry>();
  private readonly byMatchId = new Map<string, Set<string>>();
  private readonly perKey = new Map<string, number>();
  private lastEpoch = 0;

  async claim(match: NewMatch, options: ClaimOptions = {}): Promise<Claim> {
    return this.claimNow(match, options);
  }

  /** `claim` in one synchronous step. */
  claimNow(match: NewMatch, options: ClaimOptions = {}): Claim {
    const live = this.byCode.get(match.groupCode);
    if (live) return { ok: false, reason: 'taken', record: live };
    const limits = options.limits;
    if (limits && this.byCode.size >= limits.maxLive) return { ok: false, reason: 'capacity' };
    if (limits && this.countForKey(match.keyId) >= limits.maxPerKey) return { ok: false, reason: 'key_capacity' };
    this.lastEpoch = Math.max(this.lastEpoch, options.after ?? 0) + 1;
    const entry: Entry = { ...match, matchId: '', playerIds: NO_PLAYERS, epoch: this.lastEpoch };
    this.byCode.set(match.groupCode, entry);
    this.perKey.set(match.keyId, this.countForKey(match.keyId) + 1);
    if (match.matchId) this.setMatchId(match.groupCode, match.matchId);
    return { ok: true, record: entry };
  }

  release(groupCode: string, epoch: number): MatchRecord | undefined {
    const entry = this.byCode.get(groupCode);
    if (!entry || entry.epoch !== epoch) return undefined;
    this.unindex(entry);
    this.byCode.delete(groupCode);
    const n = this.countForKey(entry.keyId) - 1;
    if (n > 0) this.perKey.set(entry.keyId, n);
    else this.perKey.delete(entry.keyId);
    return entry;
  }

  setMatchId(groupCode: string, matchId: string): void {
    const entry = this.byCode.get(groupCode);
    if (!entry) return;
    this.unindex(entry);
    entry.matchId = matchId;
    if (matchId) {
      let set = this.byMatchId.get(matchId);
      if (!set) this.byMatchId.set(matchId, (set = new Set()));
      set.add(groupCode);
    }
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

  get(groupCode: string): MatchRecord | undefined {
    return this.byCode.get(groupCode);
  }

  count(): number {
    return this.byCode.size;
  }

  countForKey(keyId: string): number {
    return this.perKey.get(keyId) ?? 0;
  }

  all(): IterableIterator<MatchRecord> {
    return this.byCode.values();
  }

  groupsForMatchId(matchId: string): ReadonlySet<string> | undefined {
    return this.byMatchId.get(matchId);
  }

  hasPlayer(matchId: string, playerId: string): boolean {
    for (const code of this.byMatchId.get(matchId) ?? []) if (this.byCode.get(code)?.playerIds.has(playerId)) return true;
    return false;
  }

  private unindex(entry: Entry): void {
    if (!entry.matchId) return;
    const set = this.byMatchId.get(entry.matchId);
    set?.delete(entry.groupCode);
    if (set && set.size === 0) this.byMatchId.delete(entry.matchId);
  }
}
