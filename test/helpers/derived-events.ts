// The recorded 19-round match's match events as a shard derives them: the real engine and event
// deriver driven as workers/shard/apply.ts and match-events.ts drive them (timeReached() at the
// message, the engine's apply, message(), observe()). For the journal's tests and bench/event-memory.ts.
import type { DerivedEvent } from '../../src/protocol/match-events.js';
import { recordedMatch } from '../../src/tools/recorded-match.js';
import { MatchEventDeriver } from '../../src/workers/events/deriver.js';
import { Match } from '../../src/workers/match/match.js';
import { DEFAULT_SPONSOR_LOGO_URL } from '../../src/workers/match/tools.js';

/** The recorded match's derived events, in order (a new array each call). */
export function derivedEvents(): DerivedEvent[] {
  type Rec = { type: string; data: never; timestamp: number };
  const replay = recordedMatch() as unknown as { header: any; records: Rec[] };
  const h = replay.header;
  const match = Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam, rightTeam: h.rightTeam, toolsData: h.toolsData, organizationId: '', isSupporter: false }, h.logStartTime, { sponsorLogoUrl: DEFAULT_SPONSOR_LOGO_URL });
  const deriver = new MatchEventDeriver(match.liveState(), match.stateVersion, h.logStartTime, false);
  const events = deriver.take();
  for (const rec of replay.records) {
    deriver.timeReached(match.liveState(), match.stateVersion, rec.timestamp);
    if (match.apply(rec as never, rec.timestamp).ok) deriver.message(match.liveState(), match.stateVersion, rec.type, rec.data, rec.timestamp);
    deriver.observe(match.liveState(), match.stateVersion, match.lastChangeAt);
    events.push(...deriver.take());
  }
  return events;
}
