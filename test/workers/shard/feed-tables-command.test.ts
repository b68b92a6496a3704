// The `feed_tables` command (GET /feeds of a local match, main/feeds/shard-tables.ts): a real Shard
// (no thread) with the recorded match answers with the tables of its latest frame, numbered as that
// frame, equal to the tables parsed from that frame's text; asked while a change is not framed yet,
// it answers with the next frame, in the same output.
import { describe, expect, it } from 'vitest';
import { feedTablesOf, type MatchData } from '../../../src/protocol/feed-tables.js';
import { packObsRecord, RECORD_SEP, type ShardCmd, type ShardOut } from '../../../src/protocol/shard-messages.js';
import type { ShardSettings } from '../../../src/protocol/shard-settings.js';
import { matchDataJson } from '../../../src/protocol/wire.js';
import { Shard } from '../../../src/workers/shard/shard.js';
import { runBatch } from '../../../src/workers/shard/thread.js';
import { recordedMatch } from '../../helpers/recorded.js';

const replay = recordedMatch();
const h = replay.header;
const CODE = 'FEEDT1';
const settings: ShardSettings = {
  shard: 0, intervalMs: 100, inactivityMs: 3_600_000, trustReplayTimestamps: true, sponsorLogoUrl: '', recordReplays: false,
  replayDir: '', serviceVersion: 'test', compression: true, frameSerializer: 'wire', snapshotIntervalMs: 1000,
};

let mark = 0;
const obs = (records: typeof replay.records): ShardCmd[] => [
  { t: 'obs', count: records.length, packed: records.map((rec) => packObsRecord(CODE, 0, 0, '', JSON.stringify({ ...rec, groupCode: CODE }))).join(RECORD_SEP) },
];
const closing = (): ShardCmd => ({ t: 'mark', mark: ++mark });

/** The tables the main thread gets: the scoreboard's JSON parsed, the players' JSON text parsed. */
function answerOf(out: ShardOut): { frameNo: number; tables: ReturnType<typeof feedTablesOf> } {
  const t = out.feedTables!;
  expect(t.codes).toEqual([CODE]);
  const sb = JSON.parse(t.scoreboards[0]) as Omit<ReturnType<typeof feedTablesOf>, 'players'>;
  return { frameNo: t.frameNos[0], tables: { ...sb, players: JSON.parse(t.players[0]) } };
}

describe('feed_tables', () => {
  it('answers with the tables of the latest frame (as its text has them), or of the next frame when a change is not framed yet', () => {
    const outputs: ShardOut[] = [];
    const shard = new Shard(settings, (o) => outputs.push(o));
    shard.pacer.stop(); // no timers: the test makes each frame (frame())
    runBatch(shard, [{
      t: 'create', groupCode: CODE, now: 0,
      logon: { groupCode: CODE, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false, obsName: 'test', clientVersion: '0.3.3' },
    }, closing()]);
    const frame = () => { shard.sendFrame(shard.slots.get(CODE)!, Date.now()); shard.out.flush(); };
    for (let r = 0; r < 1200; r += 20) { runBatch(shard, [...obs(replay.records.slice(r, r + 20)), closing()]); frame(); }
    const lastFrameNo = () => { for (let i = outputs.length - 1; i >= 0; i--) { const k = outputs[i].codes.lastIndexOf(CODE); if (k >= 0) return outputs[i].frameNos[k]; } return 0; };
    expect(lastFrameNo()).toBeGreaterThan(10);

    // Framed state: answered at once, with the latest frame's number; its text (asked in the same batch) gives the same tables.
    outputs.length = 0;
    runBatch(shard, [{ t: 'feed_tables', groupCode: CODE }, { t: 'frame_texts', groupCode: CODE, answer: true }, closing()]);
    const now = outputs.find((o) => o.feedTables)!;
    const late = outputs.find((o) => o.lateFrameTexts)!.lateFrameTexts!;
    const atOnce = answerOf(now);
    expect(late.frameNos[0]).toBe(atOnce.frameNo);
    expect(atOnce.tables).toEqual(feedTablesOf(JSON.parse(matchDataJson(late.frameTexts[0])) as MatchData));
    expect(atOnce.tables.players).toHaveLength(10);

    // A change not framed yet when the command comes: the answer comes with the next frame, in its output.
    outputs.length = 0;
    runBatch(shard, [...obs(replay.records.slice(1200, 1210)), { t: 'feed_tables', groupCode: CODE }, closing()]);
    expect(outputs.some((o) => o.feedTables)).toBe(false);
    frame();
    const out = outputs.find((o) => o.feedTables)!;
    const next = answerOf(out);
    expect(next.frameNo).toBe(atOnce.frameNo + 1);
    expect(out.codes).toContain(CODE);
    expect(out.frameNos[out.codes.indexOf(CODE)]).toBe(next.frameNo);
    // Nothing more is sent once answered.
    outputs.length = 0;
    runBatch(shard, [...obs(replay.records.slice(1210, 1220)), closing()]);
    frame();
    expect(outputs.some((o) => o.feedTables)).toBe(false);
  });
});
