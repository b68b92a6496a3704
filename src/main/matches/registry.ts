// The main thread's index of live matches: which shard owns a group code, its secret (for logon
// checks), its game match id and roster player ids (for auxiliary logons and routing) and its
// latest frame (for frontends that log on mid-match). The match state itself lives only in the shard.
import type { FramePacket } from '../broadcast/frame.js';
import type { MatchSummary } from '../../protocol/shard-messages.js';

export interface LiveMatch {
  groupCode: string;
  shard: number;
  /** sha-256 of the group secret, hex: compared in constant time (credentials.ts), never kept in clear. */
  secretDigest: string;
  matchId: string;
  organizationId: string;
  isSupporter: boolean;
  createdAt: number;
  /** The logon's team objects, as stored in team info (a match can outlive its team-info entry). */
  teams: { leftTeam: unknown; rightTeam: unknown };
  /** Digest of the access key (or the organisation) that created it: MAX_MATCHES_PER_KEY. */
  keyId?: string;
  /** The player ids on the match's roster, as the shard reports them (auxiliary logons must name one). */
  playerIds?: ReadonlySet<string>;
  /** The shard's latest dashboard summary (teams, score, round, phase, map, last event); none before the first. */
  summary?: MatchSummary;
}

export class MatchRegistry {
  private readonly byCode = new Map<string, LiveMatch>();
  private readonly byMatchId = new Map<string, Set<string>>();
  private readonly latest = new Map<string, FramePacket>();

  count(): number {
    return this.byCode.size;
  }

  get(groupCode: string): LiveMatch | undefined {
    return this.byCode.get(groupCode);
  }

  all(): IterableIterator<LiveMatch> {
    return this.byCode.values();
  }

  add(match: LiveMatch): void {
    this.byCode.set(match.groupCode, match);
  }

  setMatchId(groupCode: string, matchId: string): void {
    const match = this.byCode.get(groupCode);
    if (!match) return;
    this.unindex(match);
    match.matchId = matchId;
    if (matchId) {
      let set = this.byMatchId.get(matchId);
      if (!set) this.byMatchId.set(matchId, (set = new Set()));
      set.add(groupCode);
    }
  }

  /** Group codes of the live matches with this game match id. */
  groupsForMatchId(matchId: string): ReadonlySet<string> | undefined {
    return this.byMatchId.get(matchId);
  }

  setRoster(groupCode: string, playerIds: string[]): void {
    const match = this.byCode.get(groupCode);
    if (match) match.playerIds = new Set(playerIds);
  }

  /** Whether a live match with this game match id has this player on its roster. */
  hasPlayer(matchId: string, playerId: string): boolean {
    for (const code of this.byMatchId.get(matchId) ?? []) if (this.byCode.get(code)?.playerIds?.has(playerId)) return true;
    return false;
  }

  remove(groupCode: string): LiveMatch | undefined {
    const match = this.byCode.get(groupCode);
    if (!match) return undefined;
    this.unindex(match);
    this.byCode.delete(groupCode);
    this.latest.delete(groupCode);
    return match;
  }

  setSummary(summary: MatchSummary): void {
    const match = this.byCode.get(summary.groupCode);
    if (match) match.summary = summary;
  }

  setLatestFrame(packet: FramePacket): void {
    if (this.byCode.has(packet.groupCode)) this.latest.set(packet.groupCode, packet);
  }

  latestFrame(groupCode: string): FramePacket | undefined {
    return this.latest.get(groupCode);
  }

  private unindex(match: LiveMatch): void {
    if (!match.matchId) return;
    const set = this.byMatchId.get(match.matchId);
    set?.delete(match.groupCode);
    if (set && set.size === 0) this.byMatchId.delete(match.matchId);
  }
}
