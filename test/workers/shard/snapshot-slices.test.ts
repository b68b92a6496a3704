// Snapshot rounds spread over the cycles of their interval (workers/shard/snapshots.ts, issue 28):
// each slice snapshots some of the matches at a later batch mark than the round began with, so a
// shard restarted after a crash, given those snapshots and every batch after the round's reported
// mark, must skip the batches a match's own snapshot already holds. Driven on real Shards (no
// thread) with the recorded match: one that never crashes, one that "crashes" mid-round (its
// outputs are all the pool would have), and its replacement.
import { describe, expect, it } from 'vitest';
import { packObsRecord, RECORD_SEP, type ShardCmd, type ShardOut } from '../../../src/protocol/shard-messages.js';
import type { ShardSettings } from '../../../src/protocol/shard-settings.js';
import { Shard } from '../../../src/workers/shard/shard.js';
import { runBatch } from '../../../src/workers/shard/thread.js';
import { recordedMatch } from '../../helpers/recorded.js';

const replay = recordedMatch();
const h = replay.header;
const records = replay.records.slice(0, 900); // the lobby and the first rounds: kills, economy (not idempotent)
const CODES = Array.from({ length: 8 }, (_, i) => `SLICE${i}`);
const settings: ShardSettings = {
  shard: 0, intervalMs: 100, inactivityMs: 3_600_000, trustReplayTimestamps: true, sponsorLogoUrl: '', recordReplays: false,
  replayDir: '', serviceVersion: 'test', compression: true, frameSerializer: 'wire', snapshotIntervalMs: 1000,
};

/** The batches the pool would post: the matches' creation, then records in turn, a few per batch, each batch ending with its mark. */
function batches(): ShardCmd[][] {
  let mark = 0;
  const out: ShardCmd[][] = [CODES.map((code) => ({
    t: 'create', groupCode: code, now: 0,
    logon: { groupCode: code, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false, obsName: 'test', clientVersion: '0.3.3' },
  }) satisfies ShardCmd)];
  out[0].push({ t: 'mark', mark: ++mark });
  for (let r = 0; r < records.length; r += 3) {
    const packed: string[] = [];
    for (const code of CODES) for (const rec of records.slice(r, r + 3)) packed.push(packObsRecord(code, 0, 0, '', JSON.stringify({ ...rec, groupCode: code })));
    out.push([{ t: 'obs', count: packed.length, packed: packed.join(RECORD_SEP) }, { t: 'mark', mark: ++mark }]);
  }
  return out;
}

function newShard(outputs: ShardOut[] = []): Shard {
  const shard = new Shard(settings, (o) => outputs.push(o));
  shard.pacer.stop(); // no timers: frames go out on the leading edge only, which is all this test needs
  return shard;
}

/** Each match's state as JSON with its members sorted (a restored state may hold them in another order). */
const states = (shard: Shard) => CODES.map((code) => JSON.stringify(shard.slots.get(code)!.match.liveState(), sortedMembers));
const sortedMembers = (_k: string, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v);

/** Where two lists of states differ: the match, and the text around the first difference (a short failure message). */
function diff(got: string[], want: string[]): string[] {
  const out: string[] = [];
  got.forEach((g, i) => {
    if (g === want[i]) return;
    let k = 0;
    while (k < g.length && g[k] === want[i][k]) k++;
    out.push(`${CODES[i]}: …${g.slice(Math.max(0, k - 80), k + 40)} (want …${want[i].slice(Math.max(0, k - 80), k + 40)})`);
  });
  return out;
}

/** A run that crashes after `crashAt` batches, restarted from its snapshots (`replay`: as the pool's recovery marks them) and the batches after the reported mark. */
function crashedRun(all: ShardCmd[][], crashAt: number, replayFlag: boolean): { restarted: Shard; reported: number; marks: Set<number> } {
  const outputs: ShardOut[] = [];
  const first = newShard(outputs);
  for (let b = 0; b < crashAt; b++) {
    runBatch(first, all[b]);
    if (b % 7 === 6) { first.takeSnapshots(false); first.out.flush(); } // a slice between some batches
  }
  first.exit();
  const latest = new Map<string, string>();
  let reported = -1;
  const marks = new Set<number>();
  for (const o of outputs) {
    if (!o.snapshots) continue;
    reported = Math.max(reported, o.snapshots.mark);
    o.snapshots.codes.forEach((code, i) => latest.set(code, o.snapshots!.texts[i]));
    for (const text of o.snapshots.texts) marks.add((JSON.parse(text.slice(8, text.indexOf(',"match":'))) as { mark: number }).mark);
  }
  const restarted = newShard();
  runBatch(restarted, [...latest].map(([code, text]) => ({ t: 'restore', groupCode: code, snapshot: text, playercamSecret: '', frameNoBase: 1, ...(replayFlag ? { replay: true } : {}) }) satisfies ShardCmd));
  for (const batch of all) {
    const mark = (batch[batch.length - 1] as { mark: number }).mark;
    if (mark > reported) runBatch(restarted, batch);
  }
  return { restarted, reported, marks };
}

describe('snapshot rounds in slices', () => {
  const all = batches();
  const reference = newShard();
  for (const batch of all) runBatch(reference, batch);
  reference.exit();

  it('snapshots a slice of the matches per cycle, and reports the mark the round began with once it is whole', () => {
    const outputs: ShardOut[] = [];
    const shard = newShard(outputs);
    runBatch(shard, all[0]);
    runBatch(shard, all[1]);
    const sizes: number[] = [];
    const reportedMarks: number[] = [];
    for (let cycle = 0; cycle < 10; cycle++) {
      shard.takeSnapshots(false);
      shard.out.flush();
      const snaps = outputs.pop()?.snapshots;
      sizes.push(snaps?.codes.length ?? 0);
      reportedMarks.push(snaps?.mark ?? -1);
      runBatch(shard, all[2 + cycle]); // the matches change between slices
      outputs.length = 0;
    }
    shard.exit();
    // 8 matches over 10 slices: one per slice until all are taken; the first round reports mark 2 (its start) with its last match.
    expect(sizes.slice(0, 8)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    expect(reportedMarks.slice(0, 7).every((m) => m === -1)).toBe(true);
    expect(reportedMarks[7]).toBe(2);
    // The next round begins at once with the matches changed since: their snapshots hold later marks.
    expect(sizes[8]).toBe(1);
  });

  it('a shard restarted mid-round from its slices ends in the same state as one that never crashed', () => {
    for (const crashAt of [40, 97, 180, 301]) {
      const { restarted, reported, marks } = crashedRun(all, crashAt, true);
      expect(marks.size).toBeGreaterThan(1); // the snapshots were taken at several marks
      expect([...marks].some((m) => m > reported)).toBe(true); // some after the reported one: the case the skip is for
      expect(diff(states(restarted), states(reference)), `crash after ${crashAt} batches`).toEqual([]);
      restarted.exit();
    }
  });

  it('without the snapshot marks (a restore not marked for replay), the replayed batches would be applied twice', () => {
    const { restarted } = crashedRun(all, 180, false);
    expect(states(restarted)).not.toEqual(states(reference));
    restarted.exit();
  });
});
