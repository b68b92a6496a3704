// Team timeouts and the tech pause (docs/match-rules.md 10.1, 10.2).
//
// Timers are absolute times in `core.timers` (Infinity = none); advanceTimers() (timers.ts) fires
// them in time order, the end timer before a countdown tick due at the same moment.

import type { EngineCore } from './types.js';
import { touch } from './dirty.js';

export const TICK_MS = 1000;

export function raise(core: EngineCore, at: number): void {
  core.stateVersion += 1;
  core.lastChangeAt = at;
}

export function stopTimeoutTimers(core: EngineCore): void {
  core.timers.tickAt = Infinity;
  core.timers.timeoutEndAt = Infinity;
}

/** D − G: a cancel at or below this many seconds remaining is charged. */
function chargeThreshold(core: EngineCore): number {
  const tools = core.state.tools;
  return tools.timeoutDuration - tools.timeoutCancellationGracePeriod;
}

function decrementCounter(core: EngineCore, side: 'left' | 'right'): void {
  touch(core.state.tools);
  const counter = core.state.tools.timeoutCounter;
  counter[side] = Math.max(0, counter[side] - 1);
}

/** `left_timeout` / `right_timeout`: start, or cancel when that side is active. */
export function toggleTeamTimeout(core: EngineCore, side: 'left' | 'right', now: number): void {
  const state = core.state;
  const ts = state.timeoutState;
  const active = side === 'left' ? ts.leftTeam : ts.rightTeam;

  if (active) {
    if (ts.timeRemaining <= chargeThreshold(core)) decrementCounter(core, side);
    ts.leftTeam = false;
    ts.rightTeam = false;
    stopTimeoutTimers(core);
    return;
  }

  if (state.tools.timeoutCounter[side] <= 0) return;
  const duration = state.tools.timeoutDuration;
  ts.leftTeam = side === 'left';
  ts.rightTeam = side === 'right';
  ts.techPause = false;
  ts.timeRemaining = duration;
  state.timeoutGracePeriodPassed = false;
  core.timers.tickAt = now + TICK_MS;
  core.timers.timeoutEndAt = now + duration * 1000;
}

/** One countdown tick (due at `at`). */
export function timeoutTick(core: EngineCore, at: number): void {
  const state = core.state;
  const ts = state.timeoutState;
  if (ts.timeRemaining > 0) {
    ts.timeRemaining -= 1;
    raise(core, at);
  }
  if (ts.timeRemaining <= chargeThreshold(core)) state.timeoutGracePeriodPassed = true;
  core.timers.tickAt = ts.timeRemaining > 0 ? at + TICK_MS : Infinity;
}

/** The end timer: charge the active side, end the timeout, stop the countdown. */
export function timeoutEnd(core: EngineCore, at: number): void {
  const ts = core.state.timeoutState;
  if (ts.leftTeam) decrementCounter(core, 'left');
  else if (ts.rightTeam) decrementCounter(core, 'right');
  ts.leftTeam = false;
  ts.rightTeam = false;
  stopTimeoutTimers(core);
  raise(core, at);
}

/** `tech_pause` toggle: turning it on ends any team timeout without charging it. */
export function toggleTechPause(core: EngineCore): void {
  const ts = core.state.timeoutState;
  ts.techPause = !ts.techPause;
  if (ts.techPause) {
    ts.leftTeam = false;
    ts.rightTeam = false;
    stopTimeoutTimers(core);
  }
}
