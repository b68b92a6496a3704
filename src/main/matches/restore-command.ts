// The command that rebuilds a match in a shard from its snapshot: after a shard crash (shard-recovery.ts)
// and when a match is adopted or resumed (matches/lifecycle.ts).
import type { RestoreMatchCmd } from '../../protocol/shard-messages.js';
import type { FrameBus } from '../frames/index.js';

/** The command that rebuilds a match from its snapshot; its frame numbers go on after its latest frame (every overlay gets a keyframe next). */
export function restoreCommand(frames: FrameBus, groupCode: string, snapshot: string, camSecret: string): RestoreMatchCmd {
  return { t: 'restore', groupCode, snapshot, playercamSecret: camSecret, frameNoBase: (frames.latest(groupCode)?.frameNo ?? 0) + 1 };
}
