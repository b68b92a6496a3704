// A shard thread's warm-up (SHARD_WARMUP): before its first command, the thread plays the recorded
// match through a shard of its own that nothing reads, so V8 compiles the hot paths (the engine's
// rules, the event deriver, the frame's walks and serializers, the delta encoder) and settles the
// state's object shapes before the first real match arrives, instead of compiling them on its
// helper threads, and running them unoptimized, through the first half-minute of real traffic
// (docs/perf/message-path.md, "The shard threads' warm-up"). Each of `matches` copies gets every recorded message in its
// own batch and a frame at the cycle after it (FRAME_EDGE=cycle: one frame per message); the outputs
// go nowhere; the shard is dropped. ~0.6 s of the thread's time at its start (measured), none later.
import { packObsRecord, type AuthTeamWire } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import { recordedMatch } from '../../playback/recorded-match.js';
import { runBatch } from './batch.js';
import { runCycle } from './cycle.js';
import { Shard } from './shard.js';

/** Plays the warm-up; returns how long it took (ms). */
export function warmUp(settings: ShardSettings, matches = 2): number {
  const started = performance.now();
  const replay = recordedMatch();
  const shard = new Shard({ ...settings, frameEdge: 'cycle', recordReplays: false, faultInjection: false }, () => undefined);
  shard.pacer.stop();
  const codes = Array.from({ length: matches }, (_, i) => `WARMUP${i}`);
  const h = replay.header;
  for (const groupCode of codes) {
    runBatch(shard, [{ t: 'create', groupCode, now: Date.now(), logon: { groupCode, leftTeam: h.leftTeam as AuthTeamWire, rightTeam: h.rightTeam as AuthTeamWire, toolsData: h.toolsData, organizationId: '', isSupporter: false, obsName: 'warm-up', clientVersion: '' } }]);
  }
  for (const record of replay.records) {
    for (const groupCode of codes) {
      runBatch(shard, [{ t: 'obs', count: 1, packed: packObsRecord(groupCode, Date.now(), 0, '', JSON.stringify({ ...record, groupCode })) }]);
    }
    runCycle(shard);
  }
  shard.exit();
  return Math.round(performance.now() - started);
}
