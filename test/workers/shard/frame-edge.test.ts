// FRAME_EDGE's rule (workers/shard/frame-edge.ts): leading always, cycle never, auto while the shard is busy.
import { describe, expect, it } from 'vitest';
import type { ShardCmd } from '../../../src/protocol/shard-messages.js';
import { AUTO_EDGE_BUSY, FrameEdge } from '../../../src/workers/shard/frame-edge.js';

// A batch's observer messages travel packed in one command (`count` of them); each auxiliary one is a row.
const obs = (n: number): ShardCmd[] => [{ t: 'obs', count: n, packed: '' }];
const aux = (n: number): ShardCmd[] => [{ t: 'aux', groupCodes: [], matchIds: [], playerIds: [], raws: Array<string>(n).fill('{}'), nows: [] }];
const mark: ShardCmd = { t: 'mark', mark: 1 };

describe('FrameEdge', () => {
  it('leading sends after every batch, cycle after none', () => {
    expect(new FrameEdge('leading').afterBatch([mark])).toBe(true);
    expect(new FrameEdge(undefined).afterBatch(obs(1))).toBe(true);
    expect(new FrameEdge('cycle').afterBatch(obs(AUTO_EDGE_BUSY * 2))).toBe(false);
  });

  it('auto: the cycle while fewer than AUTO_EDGE_BUSY messages came in this cycle and the previous one, the leading edge from there', () => {
    const edge = new FrameEdge('auto');
    expect(edge.afterBatch(obs(1))).toBe(false);
    expect(edge.afterBatch([...obs(AUTO_EDGE_BUSY - 2), mark])).toBe(false); // marks do not count
    expect(edge.afterBatch(aux(1))).toBe(true); // the 50th message of the cycle
    edge.cycle();
    expect(edge.afterBatch(obs(1))).toBe(true); // the previous cycle was busy
    edge.cycle();
    expect(edge.afterBatch(obs(1))).toBe(false); // one message in the previous cycle: quiet again
  });
});
