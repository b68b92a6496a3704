// The shard's deadline heap (workers/shard/deadlines.ts): the cycle visits only the matches whose
// earliest deadline (engine timer, inactivity check) is due, earliest first; keys move in place.
import { describe, expect, it } from 'vitest';
import { Match } from '../../../src/workers/match/match.js';
import { Deadlines } from '../../../src/workers/shard/deadlines.js';
import { newSlot, type Slot } from '../../../src/workers/shard/slot.js';
import { recordedMatch } from '../../helpers/recorded.js';

const h = recordedMatch().header;
const match = Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false }, 0, { sponsorLogoUrl: 'x' });

/** A slot (the heap reads its keys only; the engine's next timer is given to it, here any time). */
function slot(code: string, lastActivityAt: number): Slot {
  return newSlot(code, match, { matchId: '', lastActivityAt, lastEventAt: 0, frameNo: 0, snapshot: { event: -1, inputs: -1, replayMark: -1 }, inputs: 0, recordStart: 0, recorder: undefined });
}

const key = (s: Slot) => Math.min(s.deadline.timerAt, s.deadline.inactivityAt);

describe('the deadline heap', () => {
  it('gives the due matches earliest first, follows moved timers and removals (random operations against a scan)', () => {
    let seed = 7;
    const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
    const d = new Deadlines(true, 1000);
    const live = new Set<Slot>();
    for (let step = 0; step < 5000; step++) {
      const op = rnd(4);
      if (op === 0 || live.size < 5) {
        const s = slot('S' + step, rnd(5000));
        d.add(s, rnd(3) === 0 ? null : rnd(6000));
        live.add(s);
      } else if (op === 1) {
        const s = [...live][rnd(live.size)];
        d.timerMoved(s, rnd(3) === 0 ? null : rnd(6000));
      } else if (op === 2) {
        const s = [...live][rnd(live.size)];
        d.remove(s);
        live.delete(s);
      } else {
        const now = rnd(7000);
        const s = d.due(now);
        const min = Math.min(...[...live].map(key));
        if (min <= now) {
          expect(s).toBeDefined();
          expect(key(s!)).toBe(min);
          d.checkInactivityAt(s!, now + 1 + rnd(3000)); // as the cycle does once it looked at it
          if (s!.deadline.timerAt <= now) d.timerMoved(s!, null);
        } else {
          expect(s).toBeUndefined();
        }
      }
      expect(d.size).toBe(live.size);
    }
  });

  it('with the recorded clock tracks only inactivity (only messages move engine time)', () => {
    const d = new Deadlines(false, 1000);
    const s = slot('R', 0);
    d.add(s, 50);
    expect(d.due(500)).toBeUndefined();
    expect(d.due(1001)).toBe(s);
  });
});
