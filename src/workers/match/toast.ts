// `toast` toggle (docs/match-rules.md 10.3) and its auto-off timer.

import type { ToastData } from '../../schemas/messages.js';
import { raise } from './timeouts.js';
import type { EngineCore } from './types.js';

export function initialToast(): EngineCore['state']['toastInfo'] {
  return { active: false, title: '', message: '', duration: null, eventLogoEnabled: true };
}

export function toggleToast(core: EngineCore, data: ToastData, now: number): void {
  const state = core.state;
  if (state.toastInfo.active) {
    toastOff(core);
    return;
  }
  // The received members in received order, then `active` (a received `active` keeps its place).
  state.toastInfo = { ...data, active: true };
  const duration = data.duration;
  // A positive duration (ms) switches it off later; null or missing: until the next toggle.
  core.timers.toastOffAt = typeof duration === 'number' && duration > 0 ? now + duration : Infinity;
}

/** Toggle-off and `combat`: switch off and cancel a pending auto-off. */
export function toastOff(core: EngineCore): void {
  core.state.toastInfo.active = false;
  core.timers.toastOffAt = Infinity;
}

/** The auto-off timer (due at `at`). */
export function toastExpired(core: EngineCore, at: number): void {
  toastOff(core);
  raise(core, at);
}
