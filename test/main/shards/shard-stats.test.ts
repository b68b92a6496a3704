// The shard's applied-message counts by envelope type (ods_messages_applied_total{type}): the type
// is the client's choice, bounded to MAX_TYPE_NAMES names matching TYPE_NAME, the rest `other`.
// Names that are also members of Object.prototype are names like any other (a `toString` once
// turned the count into text and every later /metrics scrape into a 500; test/main/ingest/fuzz.test.ts found it).
// The thread's loop delay: how late each cycle started after the one before it (stats.ts).
import { describe, expect, it } from 'vitest';
import { MAX_TYPE_NAMES } from '../../../src/protocol/limits.js';
import { StatsCounter } from '../../../src/workers/shard/stats.js';

/** The stats now: each call an hour after the one before (a take within STATS_INTERVAL_MS of the last gives none). */
let hours = 0;
const taken = (c: StatsCounter) => c.take(Date.now() + ++hours * 3_600_000, 0, 0, {})!;

describe('applied messages by type', () => {
  it('counts each type; prototype member names are plain names or `other`', () => {
    const c = new StatsCounter(100);
    for (const type of ['map', 'map', 'constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) c.accepted(type);
    const stats = taken(c);
    c.stop();
    expect(stats.applied).toBe(7);
    const byType = stats.appliedByType!;
    expect(Object.entries(byType).sort()).toEqual([['__proto__', 1], ['constructor', 1], ['map', 2], ['other', 3]]);
    for (const v of Object.values(byType)) expect(typeof v).toBe('number');
  });

  it('keeps at most MAX_TYPE_NAMES names; later new names count as `other`', () => {
    const c = new StatsCounter(100);
    for (let i = 0; i < MAX_TYPE_NAMES + 10; i++) c.accepted(`type_${String.fromCharCode(97 + (i % 26))}_${'x'.repeat(Math.floor(i / 26))}`);
    c.accepted('type_a_'); // a known name still counts under itself
    c.accepted('Not Valid');
    const byType = taken(c).appliedByType!;
    c.stop();
    expect(Object.keys(byType)).toHaveLength(MAX_TYPE_NAMES + 1);
    expect(byType.other).toBe(11);
    expect(byType.type_a_).toBe(2);
  });
});

describe('the shard thread\'s loop delay', () => {
  it('is how late each cycle started after the one before it: 0 when on time, a stall in full', () => {
    const c = new StatsCounter(100);
    // Cycles at 0, 100, 200.4, 300.4 (on time within 0.4 ms), then one 250 ms late (a stalled thread), then 100 after it.
    for (const at of [1_000, 1_100, 1_200.4, 1_300.4, 1_650.4, 1_750.4]) c.cycleStarted(at);
    const stats = taken(c);
    expect(stats.loopDelayMaxMs).toBeCloseTo(250, 0);
    expect(stats.loopDelayP99Ms).toBeCloseTo(250, 0);
    // Taken and reset: a second with on-time cycles only reads 0; the first cycle after a stop has no lateness.
    for (const at of [1_850.4, 1_950.4]) c.cycleStarted(at);
    expect(taken(c)).toMatchObject({ loopDelayMaxMs: 0, loopDelayP99Ms: 0 });
    c.stop();
    c.cycleStarted(9_000);
    expect(taken(c)).toMatchObject({ loopDelayMaxMs: 0 });
  });
});
