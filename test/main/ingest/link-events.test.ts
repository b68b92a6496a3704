// LinkEvents (src/main/ingest/link-stats.ts): the resumes and reconnections per group code that the
// dashboard's link health reads. An ended match's entry, never read again, must not stay for the
// process's life (a tournament day ends thousands of matches: docs/benchmarks.md, the soak).
import { describe, expect, it } from 'vitest';
import { LINK_EVENTS_WINDOW_MS, LinkEvents } from '../../../src/main/ingest/link-stats.js';

describe('LinkEvents', () => {
  it('counts the last window per group code, and drops the entries of matches that had no event for a window', () => {
    const links = new LinkEvents();
    const t0 = 1_000_000;
    for (let i = 0; i < 500; i++) {
      links.resumed(`ENDED${i}`, t0 + i);
      links.reconnected(`ENDED${i}`, t0 + i);
    }
    expect(links.size).toBe(500);
    expect(links.counts('ENDED7', t0 + 1000)).toEqual({ resumes: 1, reconnects: 1 });
    // Two windows later a live match has an event: the ended matches' entries (never counted again) go.
    const later = t0 + 2 * LINK_EVENTS_WINDOW_MS + 1000;
    links.resumed('LIVE', later);
    expect(links.size).toBe(1);
    expect(links.counts('LIVE', later)).toEqual({ resumes: 1, reconnects: 0 });
    expect(links.counts('ENDED7', later)).toEqual({ resumes: 0, reconnects: 0 });
  });
});
