// The shard's applied-message counts by envelope type (ods_messages_applied_total{type}): the type
// is the client's choice, bounded to MAX_TYPE_NAMES names matching TYPE_NAME, the rest `other`.
// Names that are also members of Object.prototype are names like any other (a `toString` once
// turned the count into text and every later /metrics scrape into a 500; test/main/ingest/fuzz.test.ts found it).
import { describe, expect, it } from 'vitest';
import { MAX_TYPE_NAMES } from '../../../src/protocol/limits.js';
import { StatsCounter } from '../../../src/workers/shard/stats.js';

const taken = (c: StatsCounter) => c.take(Date.now() + 3_600_000, 0, 0, {})!;

describe('applied messages by type', () => {
  it('counts each type; prototype member names are plain names or `other`', () => {
    const c = new StatsCounter();
    for (const type of ['map', 'map', 'constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) c.accepted(type);
    const stats = taken(c);
    c.stop();
    expect(stats.applied).toBe(7);
    const byType = stats.appliedByType!;
    expect(Object.entries(byType).sort()).toEqual([['__proto__', 1], ['constructor', 1], ['map', 2], ['other', 3]]);
    for (const v of Object.values(byType)) expect(typeof v).toBe('number');
  });

  it('keeps at most MAX_TYPE_NAMES names; later new names count as `other`', () => {
    const c = new StatsCounter();
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
