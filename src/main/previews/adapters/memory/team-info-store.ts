// TeamInfoStore in memory (previews/team-info-store.ts): one ExpiringMap swept every
// TEAM_INFO_CLEANUP_MS (expiry is also checked on every read).
import type { TeamInfo, TeamInfoFinal, TeamInfoStore } from '../../team-info-store.js';
import { ExpiringMap } from '../../../base/expiring-map.js';

export class MemoryTeamInfoStore implements TeamInfoStore {
  private readonly map: ExpiringMap<TeamInfo>;

  constructor(options: { ttlMs: number; cleanupMs: number; now?: () => number }) {
    this.map = new ExpiringMap<TeamInfo>({ ttlMs: options.ttlMs, now: options.now, sweep: options.cleanupMs });
  }

  async set(groupCode: string, teams: { leftTeam: unknown; rightTeam: unknown }): Promise<void> {
    this.map.set(groupCode, { leftTeam: teams.leftTeam, rightTeam: teams.rightTeam });
  }

  /** Read and write in one synchronous step: atomic in this process. */
  async setFinal(groupCode: string, extra: TeamInfoFinal): Promise<void> {
    const current = this.map.get(groupCode);
    const leftTeam = current ? current.leftTeam : extra.leftTeam;
    const rightTeam = current ? current.rightTeam : extra.rightTeam;
    if (leftTeam === undefined || rightTeam === undefined) return; // nothing to add to
    this.map.set(groupCode, {
      leftTeam,
      rightTeam,
      higherScore: extra.higherScore,
      tournamentInfo: extra.tournamentInfo,
      sponsorInfo: extra.sponsorInfo,
      isSupporter: extra.isSupporter,
    });
  }

  async get(groupCode: string): Promise<TeamInfo | undefined> {
    return this.map.get(groupCode);
  }

  async size(): Promise<number> {
    this.map.sweep();
    return this.map.size;
  }

  /** Entries in memory, expired ones not yet swept included (tests). */
  get held(): number {
    return this.map.size;
  }

  close(): void {
    this.map.close();
  }
}
