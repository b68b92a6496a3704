// Team timeouts, tech pause and toasts (docs/match-rules.md 10), driven only by `now` arguments.

import { describe, expect, it } from 'vitest';
import { Match } from '../../../src/workers/match/match.js';
import { logon, Script, SETTINGS, T0, watchAllMatches } from '../../helpers/engine.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

/** A match with `timeoutDuration` D seconds. */
function withDuration(d: number, grace?: number): Script {
  const toolsData: Record<string, unknown> = { timeoutDuration: d };
  if (grace !== undefined) toolsData.timeoutCancellationGracePeriod = grace;
  return new Script(logon({ toolsData }));
}

/** Broadcast-relevant frames: the state each time stateVersion rose, sampled every 100 ms like the cycle. */
function frames(s: Script, untilMs: number): Array<{ remaining: number; left: boolean; counter: number }> {
  const out: Array<{ remaining: number; left: boolean; counter: number }> = [];
  let sent = s.match.stateVersion - 1;
  const end = s.now + untilMs;
  for (let t = s.now; t <= end; t += 100) {
    s.match.advance(t);
    if (s.match.stateVersion > sent) {
      sent = s.match.stateVersion;
      out.push({
        remaining: s.state.timeoutState.timeRemaining,
        left: s.state.timeoutState.leftTeam,
        counter: s.state.tools.timeoutCounter.left,
      });
    }
  }
  s.now = end;
  return out;
}

describe('team timeouts', () => {
  it('counts down 5, 4, 3, 2, 1, then ends with 1 remaining and charges the side (D = 5)', () => {
    const s = withDuration(5);
    s.ok('left_timeout', true);
    expect(s.state.timeoutState).toEqual({ techPause: false, leftTeam: true, rightTeam: false, timeRemaining: 5 });
    expect(frames(s, 6_000)).toEqual([
      { remaining: 5, left: true, counter: 2 },
      { remaining: 4, left: true, counter: 2 },
      { remaining: 3, left: true, counter: 2 },
      { remaining: 2, left: true, counter: 2 },
      { remaining: 1, left: true, counter: 2 },
      { remaining: 1, left: false, counter: 1 },
    ]);
    expect(s.match.nextTimerAt).toBeNull();
  });

  it('makes 61 frames for the default 60 s, one per second', () => {
    const s = new Script();
    s.ok('right_timeout', true);
    const start = s.now;
    const ev = s.match.stateVersion;
    s.match.advance(start + 59_999);
    expect(s.match.stateVersion).toBe(ev + 59);
    expect(s.state.timeoutState).toMatchObject({ rightTeam: true, timeRemaining: 1 });
    s.match.advance(start + 60_000);
    expect(s.match.stateVersion).toBe(ev + 60); // start + 59 ticks + end = 61 frames
    expect(s.state.timeoutState).toMatchObject({ rightTeam: false, timeRemaining: 1 });
    expect(s.state.tools.timeoutCounter.right).toBe(1);
    s.match.advance(start + 120_000);
    expect(s.match.stateVersion).toBe(ev + 60);
  });

  it('runs timers in time order when advance jumps far ahead', () => {
    const s = withDuration(5);
    s.ok('left_timeout', true);
    s.ok('toast', { title: 'T', message: 'M', duration: 2_500, selectedTeam: 'none', eventLogoEnabled: false });
    const ev = s.match.stateVersion;
    s.match.advance(s.now + 100_000);
    // 4 ticks + end + toast off
    expect(s.match.stateVersion).toBe(ev + 6);
    expect(s.match.lastChangeAt).toBe(s.now + 5_000);
    expect(s.state.timeoutState.timeRemaining).toBe(1);
    expect(s.state.toastInfo.active).toBe(false);
  });

  it('cancels within the grace period without charge, and after it with charge', () => {
    const s = new Script(); // D 60, G 10
    s.ok('left_timeout', true);
    s.wait(9_000);
    expect(s.state.timeoutState.timeRemaining).toBe(51);
    expect(s.state.timeoutGracePeriodPassed).toBe(false);
    s.ok('left_timeout', true); // cancel at 51 > 50: free
    expect(s.state.timeoutState).toMatchObject({ leftTeam: false, timeRemaining: 51 });
    expect(s.state.tools.timeoutCounter.left).toBe(2);
    expect(s.match.nextTimerAt).toBeNull();

    s.ok('left_timeout', true);
    expect(s.state.timeoutState.timeRemaining).toBe(60);
    s.wait(10_000);
    expect(s.state.timeoutState.timeRemaining).toBe(50);
    expect(s.state.timeoutGracePeriodPassed).toBe(true);
    s.ok('left_timeout', true); // cancel at 50 ≤ 50: charged
    expect(s.state.tools.timeoutCounter.left).toBe(1);
    expect(s.state.timeoutState.leftTeam).toBe(false);
    const ev = s.match.stateVersion;
    s.wait(120_000);
    expect(s.match.stateVersion).toBe(ev); // both timers stopped
  });

  it('replaces the other side without charging it, and does nothing with no timeouts left', () => {
    const s = withDuration(30);
    s.ok('left_timeout', true);
    s.wait(25_000);
    s.ok('right_timeout', true);
    expect(s.state.timeoutState).toMatchObject({ leftTeam: false, rightTeam: true, timeRemaining: 30 });
    expect(s.state.timeoutGracePeriodPassed).toBe(false);
    expect(s.state.tools.timeoutCounter).toMatchObject({ left: 2, right: 2 });
    s.wait(30_000);
    expect(s.state.tools.timeoutCounter).toMatchObject({ left: 2, right: 1 });
    s.ok('right_timeout', true);
    s.wait(30_000);
    expect(s.state.tools.timeoutCounter.right).toBe(0);
    s.ok('right_timeout', true);
    expect(s.state.timeoutState.rightTeam).toBe(false);
    expect(s.match.nextTimerAt).toBeNull();
    expect(s.state.tools.timeoutCounter.right).toBe(0);
  });
});

describe('tech pause', () => {
  it('toggles, ends a running team timeout without charge and keeps timeRemaining', () => {
    const s = new Script();
    s.ok('right_timeout', true);
    s.wait(20_000);
    s.ok('tech_pause', true);
    expect(s.state.timeoutState).toEqual({ techPause: true, leftTeam: false, rightTeam: false, timeRemaining: 40 });
    expect(s.state.tools.timeoutCounter.right).toBe(2);
    expect(s.match.nextTimerAt).toBeNull();
    s.ok('tech_pause', true);
    expect(s.state.timeoutState).toEqual({ techPause: false, leftTeam: false, rightTeam: false, timeRemaining: 40 });
    // a team timeout ends the tech pause
    s.ok('tech_pause', true);
    s.ok('left_timeout', true);
    expect(s.state.timeoutState).toMatchObject({ techPause: false, leftTeam: true, timeRemaining: 60 });
  });
});

describe('toast', () => {
  const toast = { title: 'Technical pause', message: 'Back in 5 minutes', duration: 5000, selectedTeam: 'left', eventLogoEnabled: false };

  it('shows the received object and switches off after its duration', () => {
    const s = new Script();
    s.ok('toast', toast);
    expect(s.state.toastInfo).toEqual({ ...toast, active: true });
    expect(Object.keys(s.state.toastInfo)).toEqual(['title', 'message', 'duration', 'selectedTeam', 'eventLogoEnabled', 'active']);
    const ev = s.match.stateVersion;
    s.wait(4_999);
    expect(s.state.toastInfo.active).toBe(true);
    s.wait(1);
    expect(s.state.toastInfo.active).toBe(false);
    expect(s.match.stateVersion).toBe(ev + 1);
    expect(s.state.toastInfo.title).toBe('Technical pause');
  });

  it('without duration stays until toggled; a toggle while active ignores its data', () => {
    const s = new Script();
    s.ok('toast', { title: 'Hello', message: 'World', duration: null, selectedTeam: 'none', eventLogoEnabled: true });
    s.wait(3_600_000);
    expect(s.state.toastInfo.active).toBe(true);
    s.ok('toast', { title: 'Other', message: 'Other' });
    expect(s.state.toastInfo).toMatchObject({ active: false, title: 'Hello' });
    // missing duration: also until toggled
    s.ok('toast', { title: 'A', message: 'B' });
    s.wait(60_000);
    expect(s.state.toastInfo).toEqual({ title: 'A', message: 'B', active: true });
  });

  it('is switched off, and its timer cancelled, by the combat phase', () => {
    const s = new Script();
    s.phase(1, 'shopping');
    s.ok('toast', toast);
    s.phase(1, 'combat');
    expect(s.state.toastInfo.active).toBe(false);
    expect(s.match.nextTimerAt).toBeNull();
    const ev = s.match.stateVersion;
    s.wait(10_000);
    expect(s.match.stateVersion).toBe(ev); // no extra frame later
  });

  it('rejects a toast whose members have the wrong type', () => {
    const s = new Script();
    expect(s.send('toast', { title: 5, message: 'x' })).toMatchObject({ ok: false, reason: 'invalid_data' });
    expect(s.send('toast', { title: 'x', message: 'y', duration: '5000' })).toMatchObject({ ok: false, reason: 'invalid_data' });
    expect(s.state.toastInfo.active).toBe(false);
  });
});

describe('time comes only from now', () => {
  it('gives identical states for identical inputs', () => {
    const run = () => {
      const m = Match.create(logon(), T0, SETTINGS);
      m.apply({ groupCode: 'K7QX2M', type: 'left_timeout', data: true }, T0 + 10);
      m.advance(T0 + 7_500);
      return JSON.stringify(m.liveState()) + m.stateVersion;
    };
    expect(run()).toBe(run());
  });
});
