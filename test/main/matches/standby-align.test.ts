// Where the standby's held data takes over (src/main/standby/align.ts): by content, never by
// envelope bytes; the cut needs the last messages to agree; without a cut, no event twice.
import { describe, expect, it } from 'vitest';
import { afterCut, contentKey, parseEnvelope, type Held } from '../../../src/main/standby/align.js';

const msg = (type: string, data: unknown, obsName = 'A') => JSON.stringify({ obsName, groupCode: 'G', type, data, timestamp: 1 });
const key = (raw: string) => { const e = parseEnvelope(raw, 'G')!; return contentKey(e.type, e.data); };
const held = (raws: string[]): Held[] => raws.map((raw, i) => ({ raw, key: key(raw), at: i }));

describe('the standby cut', () => {
  const row = msg('scoreboard', { playerId: 'p1', money: 800 });
  const kill1 = msg('killfeed', { attacker: 'p1', victim: 'p6' });
  const kill2 = msg('killfeed', { attacker: 'p2', victim: 'p7' });
  const phase = msg('round_info', { roundNumber: 2, roundPhase: 'combat' });

  it('compares content, not envelopes: another obsName is the same message; another group or no type is not valid', () => {
    expect(key(msg('killfeed', { attacker: 'p1' }, 'A'))).toBe(key(msg('killfeed', { attacker: 'p1' }, 'Standby')));
    expect(key(kill1)).not.toBe(key(kill2));
    expect(parseEnvelope(msg('killfeed', {}).replace('"G"', '"H"'), 'G')).toBeNull();
    expect(parseEnvelope('{"groupCode":"G"}', 'G')).toBeNull();
    expect(parseEnvelope('not json', 'G')).toBeNull();
  });

  it('applies what the standby sent after its copy of the primary\'s last message, a repeated row placed by the last four', () => {
    const primary = [row, kill1, row, phase].map(key);
    const standby = held([row, kill1, row, phase, kill2, row].map((r) => r.replace('"A"', '"S"')));
    const { apply, how } = afterCut(primary, standby);
    expect(how).toBe('cut');
    expect(apply.map((h) => h.key)).toEqual([key(kill2), key(row)]);
  });

  it('without a copy of the primary\'s last message, applies only content the primary did not send: no kill twice', () => {
    const primary = [kill1, phase].map(key);
    const { apply, how } = afterCut(primary, held([kill1, kill2]));
    expect(how).toBe('content');
    expect(apply.map((h) => h.key)).toEqual([key(kill2)]);
  });

  it('with nothing of the primary kept, applies every held message', () => {
    expect(afterCut([], held([kill1, kill2]))).toMatchObject({ how: 'all' });
  });
});
