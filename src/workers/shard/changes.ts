// What follows a change to a match, whoever made it (a message applied, a timer run, a backend
// answer): the main thread learns its new match id and roster, its engine's effects go out, it gets a
// frame when one is due (frame-pacer.ts), its derived events go out (match-events.ts) and its engine timer may have moved (deadlines.ts). The rules
// (apply.ts, commands.ts, cycle.ts) and the Shard report changes here, so a rule never calls back
// into the Shard for them. This file owns the slot's `reported` part (what the main thread was told).
import type { Deadlines } from './deadlines.js';
import { forwardEffects } from './effects.js';
import { nextDeadline, sendEvents } from './match-events.js';
import type { OutputBuffer } from './output-buffer.js';
import type { FramePacer } from './frame-pacer.js';
import type { Slot } from './slot.js';

export class MatchChanges {
  constructor(private readonly out: OutputBuffer, private readonly pacer: FramePacer, private readonly deadlines: Deadlines) {}

  /** The main thread routes auxiliary data by match id: it learns each match's as it changes. */
  matchIdChanged(slot: Slot): void {
    slot.reported.matchId = slot.match.matchId;
    this.out.event({ t: 'match_id', groupCode: slot.groupCode, matchId: slot.reported.matchId });
  }

  /** The main thread learns the roster's player ids as they grow (players are only ever added): auxiliary logons must name one. */
  rosterChanged(slot: Slot): void {
    const teams = slot.match.liveState().teams;
    if (teams[0].players.length + teams[1].players.length === slot.reported.rosterSize) return;
    const playerIds = [...teams[0].players, ...teams[1].players].map((p) => p.riotId);
    slot.reported.rosterSize = playerIds.length;
    const sides = teams.map((t) => t.players.map((p) => p.fullName)) as [string[], string[]];
    this.out.event({ t: 'roster', groupCode: slot.groupCode, playerIds, sides });
  }

  /** The effects its engine requested, on to the main thread. */
  forwardEffects(slot: Slot): void {
    forwardEffects(slot, this.out);
  }

  /** The match may have changed: it gets a frame when one is due (frame-pacer.ts), its engine timer may have moved (deadlines.ts). */
  touched(slot: Slot): void {
    sendEvents(slot, this.out);
    this.pacer.touched(slot);
    this.deadlines.timerMoved(slot, nextDeadline(slot)); // the engine's timer or a round's end to settle
  }
}
