// Dashboard summaries (a few fields each) of the matches that changed since their last one, at most
// every SUMMARY_INTERVAL_MS: the operator dashboard's rows, so the main thread never parses frames.
// Only while the main thread says someone watches (the `summaries` command): otherwise nothing is
// built, and the first round once watched brings every match changed since its last summary.
import { SUMMARY_INTERVAL_MS } from '../../protocol/limits.js';
import type { MatchSummary } from '../../protocol/shard-messages.js';
import type { Slot } from './slot.js';

export class Summaries {
  /** A dashboard or /admin/matches wants them (the `summaries` command). */
  watched = false;
  private lastTakenAt = 0;

  /** The summaries when watched, due (`force`: now) and a match changed, else undefined. */
  take(slots: Iterable<Slot>, now: number, force = false): MatchSummary[] | undefined {
    if (!this.watched || (!force && now - this.lastTakenAt < SUMMARY_INTERVAL_MS)) return undefined;
    this.lastTakenAt = now;
    const summaries: MatchSummary[] = [];
    for (const slot of slots) {
      if (slot.match.stateVersion === slot.summary.event) continue;
      slot.summary.event = slot.match.stateVersion;
      const s = slot.match.liveState();
      const team = (i: 0 | 1) => ({ name: s.teams[i].teamName, tricode: s.teams[i].teamTricode, score: s.teams[i].roundsWon });
      summaries.push({
        groupCode: slot.groupCode, teams: [team(0), team(1)], roundNumber: s.roundNumber, roundPhase: s.roundPhase,
        map: s.map, lastEventAt: slot.received.at,
      });
    }
    return summaries.length > 0 ? summaries : undefined;
  }
}
