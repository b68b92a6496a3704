// The engine's timers (docs/match-rules.md 10: timeout countdown tick, timeout end, toast auto-off), kept
// as absolute times in `core.timers` (Infinity = none) and fired only by advanceTimers(): the engine
// has no clock of its own.

import { timeoutEnd, timeoutTick } from './timeouts.js';
import { toastExpired } from './toast.js';
import type { EngineCore } from './types.js';

/** Runs every timer due up to `now`, in time order (timeout end before a tick due at the same time). */
export function advanceTimers(core: EngineCore, now: number): void {
  const t = core.timers;
  for (;;) {
    const end = t.timeoutEndAt;
    const tick = t.tickAt;
    const toast = t.toastOffAt;
    const next = Math.min(end, tick, toast);
    if (!(next <= now)) return;
    if (end === next) timeoutEnd(core, end);
    else if (tick === next) timeoutTick(core, tick);
    else toastExpired(core, toast);
  }
}

/** When advanceTimers() next has work (epoch ms), or null when no timer is pending. */
export function nextTimerAt(core: EngineCore): number | null {
  const t = core.timers;
  const next = Math.min(t.tickAt, t.timeoutEndAt, t.toastOffAt);
  return next === Infinity ? null : next;
}
