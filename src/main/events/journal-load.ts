// The event journal's files read back at start (journal.ts, journal-files.ts): every match's log,
// each with the events handed on before (`handed`: an event still within its match's output delay
// waits, and is not in the resume window), and the resume window's events by time.
import type { JournalFiles } from './journal-files.js';
import { keptEvent, logOf, type MatchLog } from './match-log.js';
import { eventOf, type StoredEvent } from './types.js';

export function loadLogs(files: JournalFiles, retentionMs: number, duePrefix: (match: MatchLog) => number): { logs: MatchLog[]; window: StoredEvent[] } {
  files.expire(retentionMs, Date.now());
  const logs: MatchLog[] = [];
  const window: StoredEvent[] = [];
  for (const events of files.loadEvents()) {
    const match = logOf(events);
    match.handed = duePrefix(match);
    for (let i = 0; i < match.handed; i++) window.push(keptEvent(match, i)); // all read back: none let go
    logs.push(match);
  }
  // The stored events by time (they were added in about that order).
  const time = new Map(window.map((s) => [s, eventOf(s).time]));
  window.sort((a, b) => time.get(a)!.localeCompare(time.get(b)!) || a.seq - b.seq);
  const now = Date.now();
  for (const stored of window) stored.storedAt = now;
  return { logs, window };
}
