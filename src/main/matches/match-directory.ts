// MatchDirectory: the live matches as every process must see them. Group code → the match's
// record (digest of the group secret, game match id, organisation, key id, teams, roster ids,
// owner epoch), the match-id index of auxiliary routing, and the admission counters (in total and
// per key: MAX_LIVE_MATCHES, MAX_MATCHES_PER_KEY). Which shard thread runs a match is not here:
// that is the owning process's own concern (matches/local-routes.ts).
//
// Claims are atomic and fenced. A new group code is claimed in one step that also checks and
// counts the admission limits (Redis: one script), so of two logons for one new code exactly one
// creates the match. Every claim takes a new epoch (Redis: INCR; after a failover the next epoch is
// max(counter, snapshot epoch) + 1: `after`): the owner's fencing token, carried by its snapshots
// and frames, so that a stale owner's writes are refused (SnapshotStore, FrameBus).
//
// Reads are synchronous: they serve the per-message path (auxiliary routing) and logon checks from
// the process's view of the directory, which a shared adapter keeps current from the store's change
// notifications. Updates apply to that view at once and propagate in order.
// Adapters: matches/adapters/memory/match-directory.ts, matches/adapters/redis/match-directory.ts. Contract: test/main/matches/match-directory.contract.ts.

export interface MatchTeams { leftTeam: unknown; rightTeam: unknown }

export interface DirectoryRecord {
  readonly groupCode: string;
  /** sha-256 of the group secret, hex (compared in constant time: sessions/credentials.ts). */
  readonly secretDigest: string;
  /** The game's match id ('' until the shard learned it). */
  readonly matchId: string;
  readonly organizationId: string;
  readonly isSupporter: boolean;
  /** Which access key (or organisation) created it: a digest, never the key (MAX_MATCHES_PER_KEY). */
  readonly keyId: string;
  readonly createdAt: number;
  /** The logon's teams (a match can outlive its team-info entry). */
  readonly teams: MatchTeams;
  /** The roster's player ids as the shard reports them: an auxiliary logon must name one. */
  readonly playerIds: ReadonlySet<string>;
  /** The owner's fencing token: higher for every claim of any code. */
  readonly epoch: number;
}

/** What a claim records; `matchId` when it is known already (a match restored from its snapshot). */
export type NewMatch = Omit<DirectoryRecord, 'epoch' | 'playerIds' | 'matchId'> & { matchId?: string };

export interface ClaimOptions {
  /** Admission limits checked in the same step; none: not checked (a restored match). */
  limits?: { maxLive: number; maxPerKey: number };
  /** The claim's epoch is above this too (the epoch of the snapshot a match is restored from). */
  after?: number;
}

export type Claim =
  | { ok: true; record: DirectoryRecord }
  /** `taken`: the code is live (its record, to check the presented secret against); `capacity`, `key_capacity`: a limit is reached. */
  | { ok: false; reason: 'taken'; record: DirectoryRecord }
  | { ok: false; reason: 'capacity' | 'key_capacity' };

export interface MatchDirectory {
  /** Claims a group code for a new match (see the top of this file). */
  claim(match: NewMatch, options?: ClaimOptions): Promise<Claim>;
  /**
   * The match is gone: its record, index entries and counts are removed, if `epoch` is still its
   * epoch (a stale owner cannot remove a newer claim). Returns the removed record.
   */
  release(groupCode: string, epoch: number): DirectoryRecord | undefined;
  /** The shard learned the game's match id: indexed for auxiliary routing. */
  setMatchId(groupCode: string, matchId: string): void;
  /** The shard reported the roster's player ids. */
  setRoster(groupCode: string, playerIds: readonly string[]): void;
  /** A rotated secret: its digest replaces the old one at once. False when the match is unknown. */
  setSecretDigest(groupCode: string, digest: string): boolean;

  get(groupCode: string): DirectoryRecord | undefined;
  /** Live matches (MAX_LIVE_MATCHES). */
  count(): number;
  /** Live matches created with this key id (MAX_MATCHES_PER_KEY). */
  countForKey(keyId: string): number;
  all(): Iterable<DirectoryRecord>;
  /** Group codes of the live matches with this game match id. */
  groupsForMatchId(matchId: string): ReadonlySet<string> | undefined;
  /** Whether a live match with this game match id has this player on its roster. */
  hasPlayer(matchId: string, playerId: string): boolean;
  /** Stops the adapter's own subscriptions, if any (the view is no longer kept current). */
  close(): void;
}
