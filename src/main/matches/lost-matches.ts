// At start with STATE_DIR, after the matches came back (lifecycle.ts resume): a match whose events
// are journalled, not ended, and that did not come back (no snapshot and no creation file: a state
// directory of an earlier version, or a file that could not be read or written) while its
// observer's session did. Left alone, that session would be taken over by the observer's client
// and every message it sends dropped (`no_match`), the match never ending. Its observer sessions
// are ended instead, logged at warn: the client's reconnection is then an unauthenticated socket
// (its data ignored and counted, `unauthenticated`), and the operator's Connect makes a new match
// (docs/client-contract.md 1.5, docs/reliability.md "Losses found").
import type { Logger } from '../base/log.js';
import type { MatchDirectory } from './match-directory.js';
import type { SessionStore } from '../sessions/index.js';

/** The journal's matches (events/journal.ts `matches`), by matchKey. */
export type JournalledMatches = ReadonlyMap<string, { readonly groupCode: string; readonly ended: boolean }>;

/** Ends the observer sessions of journalled matches that did not end and are not live; returns how many sessions ended. */
export async function endSessionsOfLostMatches(journalled: JournalledMatches, directory: Pick<MatchDirectory, 'get'>, sessions: SessionStore, log: Logger): Promise<number> {
  let n = 0;
  for (const [matchKey, match] of journalled) {
    if (match.ended || !match.groupCode || directory.get(match.groupCode)) continue;
    const ended = await sessions.end({ observersOf: match.groupCode });
    if (ended.length === 0) continue;
    n += ended.length;
    log.warn({ groupCode: match.groupCode, matchKey, sessions: ended.length },
      'match lost in the restart (no state of it in STATE_DIR): its observer sessions are ended, so its observer must log on again (a new match); its events end without match_ended');
  }
  return n;
}
