// The shard's side of match events (workers/events/deriver.ts): a deriver per match (EVENTS_ENABLED),
// fed after each change, its events on to the main thread in the shard's output, each with the
// match's instance key (group code and creation time: the same on every node and after a restore).
import { MatchEventDeriver, type DeriverJournal, type EndReason } from '../events/deriver.js';
import type { OutputBuffer } from './output-buffer.js';
import type { Slot } from './slot.js';

/** `journal`: what the restored match's snapshot kept of its deriver (snapshots.ts), if anything. */
export function startEvents(slot: Slot, now: number, restored: boolean, journal?: DeriverJournal): void {
  const match = slot.match;
  slot.events.deriver = new MatchEventDeriver(match.liveState(), match.stateVersion, now, restored, journal);
}

/**
 * The match's clock reached `at`: a message at `at` is about to be applied (apply.ts), or a cycle of
 * the live clock ran (cycle.ts). A round's end it passes is settled (events/round-end.ts).
 */
export function timeReached(slot: Slot, at: number): void {
  slot.events.deriver?.timeReached(slot.match.liveState(), slot.match.stateVersion, at);
}

/** The match's next deadline: its engine's timer or its deriver's (a round's end to settle), or null. */
export function nextDeadline(slot: Slot): number | null {
  const timer = slot.match.nextTimerAt;
  const events = slot.events.deriver?.dueAt ?? null;
  return timer === null ? events : events === null ? timer : Math.min(timer, events);
}

/** An accepted message: what its envelope tells that the state does not keep (a kill's weapon, …). */
export function messageEvents(slot: Slot, type: string, data: unknown, at: number): void {
  slot.events.deriver?.message(slot.match.liveState(), slot.match.stateVersion, type, data, at);
}

/** The match may have changed: its events to the main thread. */
export function sendEvents(slot: Slot, out: OutputBuffer): void {
  const deriver = slot.events.deriver;
  if (!deriver) return;
  deriver.observe(slot.match.liveState(), slot.match.stateVersion, slot.match.lastChangeAt);
  flush(slot, out);
}

/** The match is removed: its match_ended (unless game_end gave it already). */
export function removedEvents(slot: Slot, out: OutputBuffer, reason: EndReason): void {
  const deriver = slot.events.deriver;
  if (!deriver) return;
  deriver.removed(slot.match.liveState(), slot.match.stateVersion, slot.match.lastChangeAt, reason);
  flush(slot, out);
}

export function matchKeyOf(slot: Slot): string {
  return `${slot.groupCode}-${slot.recordStart.toString(36)}`;
}

function flush(slot: Slot, out: OutputBuffer): void {
  const events = slot.events.deriver!.take();
  if (events.length === 0) return;
  const matchKey = matchKeyOf(slot);
  for (const event of events) out.event({ t: 'match_event', groupCode: slot.groupCode, matchKey, matchId: slot.match.matchId, event });
}
