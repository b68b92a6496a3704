// Two observers of one game (docs/reliability.md, "A standby observer"): the primary and the
// standby stream the same records into one group code, the standby `lagMs` behind with its own
// obsName (another spectator account: the same events, another envelope). A plain module.
import type { Socket } from 'socket.io-client';
import { atPace, yieldToIo } from './waits.js';


/**
 * A frame's JSON without `fields` (the time fields: the wall clock of the serializing shard; the
 * group code, when the reference ran under another), to compare final frames of two runs.
 */
export function frameWithout(raw: string, ...fields: string[]): Record<string, unknown> {
  const f = JSON.parse(raw) as Record<string, unknown>;
  for (const field of fields) delete f[field];
  return f;
}

/** The standby's copy of a record: its own obsName, the envelope's members in another order. */
export function standbyCopy(record: Record<string, unknown>): string {
  const { obsName: _ignored, ...rest } = record;
  return JSON.stringify({ ...rest, obsName: 'Standby#EUW' });
}

export interface PairOptions {
  primary: Socket;
  standby: Socket;
  records: Record<string, unknown>[];
  /** The primary sends records [from, cut] and then `stop` is called; the standby sends [from, end). */
  from?: number;
  cut: number;
  stop: (primary: Socket) => void;
  gapMs: number;
  lagMs: number;
  /**
   * Once the primary stopped and this is true (the failover came), the standby sends the rest of
   * `records` at once: after the failover the standby alone feeds the match, and its pace is not
   * what is tested. Unset: the standby keeps the pace to the end.
   */
  until?: () => boolean;
}

/**
 * The match so far, at once (issue 36: the pace matters around the cut, not for the whole match):
 * the primary sends records [0, to); once `received` resolves (the service has them: the standby
 * stays behind, as in the paced stream), the standby its copies of them (held, not applied). The
 * paced stretch (streamPair with `from: to`) follows.
 */
export async function sendBothAtOnce(primary: Socket, standby: Socket, records: Record<string, unknown>[], to: number, received: () => Promise<void>): Promise<void> {
  for (let i = 0; i < to; i++) {
    primary.emit('obs_data', JSON.stringify(records[i]));
    if (i % 100 === 99) await yieldToIo();
  }
  await received();
  for (let i = 0; i < to; i++) {
    standby.emit('obs_data', standbyCopy(records[i]));
    if (i % 100 === 99) await yieldToIo();
  }
}

/** Streams the pair; resolves with the time (this process's clock) the primary sent its last record. */
export async function streamPair(o: PairOptions): Promise<{ cutAt: number }> {
  const from = o.from ?? 0;
  const start = Date.now();
  let nextP = from;
  let nextS = from;
  let cutAt = 0;
  // Each record at its due time (the game's pace), checked every millisecond.
  await atPace(1, () => nextS < o.records.length, () => {
    const now = Date.now();
    while (nextP <= o.cut && start + (nextP - from) * o.gapMs <= now) o.primary.emit('obs_data', JSON.stringify(o.records[nextP++]));
    if (nextP > o.cut && !cutAt) {
      cutAt = Date.now();
      o.stop(o.primary);
    }
    const rest = cutAt > 0 && o.until?.() === true;
    while (nextS < o.records.length && (rest || start + (nextS - from) * o.gapMs + o.lagMs <= now)) o.standby.emit('obs_data', standbyCopy(o.records[nextS++]));
  });
  return { cutAt };
}
