// A map's result is its own shard output event (issue 36): at game_end the shard sends the backend's
// post-match team info (`team_info_final`, nothing else in it) and right after it, in the same
// output, `map_result` with the map and each side's rounds, once. A real Shard (no thread) plays the
// whole recorded match. A batch applied again after a crash (the outbox muted: its effects went out
// before) still sends the result: the schedule's keeper records a result only while its map is live.
import { describe, expect, it } from 'vitest';
import { packObsRecord, RECORD_SEP, type ShardCmd, type ShardEvent, type ShardOut } from '../../../src/protocol/shard-messages.js';
import type { ShardSettings } from '../../../src/protocol/shard-settings.js';
import { Shard } from '../../../src/workers/shard/shard.js';
import { runBatch } from '../../../src/workers/shard/thread.js';
import { recordedMatch } from '../../helpers/recorded.js';

const replay = recordedMatch();
const h = replay.header;
const settings: ShardSettings = {
  shard: 0, intervalMs: 100, inactivityMs: 3_600_000, trustReplayTimestamps: true, sponsorLogoUrl: '', recordReplays: false,
  replayDir: '', serviceVersion: 'test', compression: true, frameSerializer: 'wire', snapshotIntervalMs: 1000,
};

/** Plays the recorded match into a new Shard under `code`; `muteFrom`: the record index from which the outbox is muted. */
function play(code: string, muteFrom = Infinity): ShardOut[] {
  const outputs: ShardOut[] = [];
  const shard = new Shard(settings, (o) => outputs.push(o));
  shard.pacer.stop(); // no timers: each batch's output is flushed by its mark
  let mark = 0;
  const closing = (): ShardCmd => ({ t: 'mark', mark: ++mark });
  runBatch(shard, [{
    t: 'create', groupCode: code, now: 0,
    logon: { groupCode: code, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false, obsName: 'test', clientVersion: '0.3.3' },
  }, { t: 'registered', groupCode: code, registered: true }, closing()]); // registered with the backend: game_end's backend effects are due
  for (let r = 0; r < replay.records.length; r += 50) {
    if (r >= muteFrom) shard.out.muted = true;
    const records = replay.records.slice(r, r + 50);
    runBatch(shard, [{ t: 'obs', count: records.length, packed: records.map((rec) => packObsRecord(code, 0, 0, '', JSON.stringify({ ...rec, groupCode: code }))).join(RECORD_SEP) }, closing()]);
  }
  shard.out.flush();
  return outputs;
}

const ofKind = <T extends ShardEvent['t']>(outputs: ShardOut[], t: T) =>
  outputs.flatMap((o) => o.events).filter((e): e is Extract<ShardEvent, { t: T }> => e.t === t);

describe('map_result', () => {
  it('follows team_info_final at game_end, in the same output, once, with the map and each side\'s rounds', () => {
    const outputs = play('MAPRES1');
    const results = ofKind(outputs, 'map_result');
    expect(results).toEqual([{ t: 'map_result', groupCode: 'MAPRES1', map: 'Icebox', scores: [6, 13] }]);
    const infos = ofKind(outputs, 'team_info_final');
    expect(infos).toHaveLength(1);
    expect(Object.keys(infos[0]).sort()).toEqual(['groupCode', 'info', 't']); // the backend's team info only
    const out = outputs.find((o) => o.events.some((e) => e.t === 'map_result'))!;
    const kinds = out.events.map((e) => e.t);
    expect(kinds.indexOf('map_result')).toBe(kinds.indexOf('team_info_final') + 1);
  });

  it('is sent by a batch applied again muted (after a crash), where the backend effects are not', () => {
    const outputs = play('MAPRES2', replay.records.length - 400);
    expect(ofKind(outputs, 'map_result')).toEqual([{ t: 'map_result', groupCode: 'MAPRES2', map: 'Icebox', scores: [6, 13] }]);
    expect(ofKind(outputs, 'team_info_final')).toHaveLength(1);
    // The muting was in force: the backend updates of the last rounds were not sent again.
    const updates = (o: ShardOut[]) => ofKind(o, 'effect').filter((e) => e.effect.kind === 'update').length;
    expect(updates(outputs)).toBeGreaterThan(0);
    expect(updates(outputs)).toBeLessThan(updates(play('MAPRES3')));
  });
});
