// FRAME_EDGE on the shard's side (workers/shard/thread.ts runBatch): a real Shard (no thread) sends a
// batch's due frames right after it with `leading` and `auto` (with `auto` the main thread makes a
// quiet service's batches an interval long: main/shards/batches.ts), and none with `cycle`, whose
// frames wait for the shard's cycle.
import { describe, expect, it } from 'vitest';
import { packObsRecord, RECORD_SEP, type ShardCmd, type ShardOut } from '../../../src/protocol/shard-messages.js';
import type { ShardSettings } from '../../../src/protocol/shard-settings.js';
import { runCycle } from '../../../src/workers/shard/cycle.js';
import { Shard } from '../../../src/workers/shard/shard.js';
import { runBatch } from '../../../src/workers/shard/thread.js';
import { recordedMatch } from '../../helpers/recorded.js';

const replay = recordedMatch();
const h = replay.header;
const CODE = 'EDGE01';

/** Frames in the shard's outputs after one batch (a match created and its first 20 recorded messages), then after a cycle (`cycle`). */
function framesAfter(frameEdge: ShardSettings['frameEdge'], cycle: boolean): { afterBatch: number; afterCycle: number } {
  const outputs: ShardOut[] = [];
  const shard = new Shard({
    shard: 0, intervalMs: 100, inactivityMs: 3_600_000, trustReplayTimestamps: true, sponsorLogoUrl: '', recordReplays: false,
    replayDir: '', serviceVersion: 'test', compression: true, frameSerializer: 'wire', snapshotIntervalMs: 1000, frameEdge,
  }, (o) => outputs.push(o));
  shard.pacer.stop(); // no timers: only the batch and the cycle send frames
  const frames = () => outputs.reduce((n, o) => n + o.codes.length, 0);
  const records = replay.records.slice(0, 20);
  const obs: ShardCmd = { t: 'obs', count: records.length, packed: records.map((rec) => packObsRecord(CODE, 0, 0, '', JSON.stringify({ ...rec, groupCode: CODE }))).join(RECORD_SEP) };
  runBatch(shard, [{
    t: 'create', groupCode: CODE, now: 0,
    logon: { groupCode: CODE, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false, obsName: 'test', clientVersion: '0.3.3' },
  }, obs, { t: 'mark', mark: 1 }]);
  const afterBatch = frames();
  if (cycle) runCycle(shard);
  return { afterBatch, afterCycle: frames() - afterBatch };
}

describe('a batch\'s frames (FRAME_EDGE, the shard\'s side)', () => {
  it('leading and auto send them right after the batch, cycle at the cycle only', () => {
    expect(framesAfter('leading', false).afterBatch).toBe(1);
    expect(framesAfter(undefined, false).afterBatch).toBe(1);
    expect(framesAfter('auto', false).afterBatch).toBe(1);
    expect(framesAfter('cycle', true)).toEqual({ afterBatch: 0, afterCycle: 1 });
  });
});
