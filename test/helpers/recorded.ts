// The recorded 19-round match the project ships (src/tools/recorded-match.ts knows where it lives),
// its landmarks, and an observer that logs on with its header's fields. Records are sent with the
// replay tool's own functions (src/tools/replay-client.ts: sendRecords, playReplay).
import type { Socket } from 'socket.io-client';
import { recordedMatch } from '../../src/tools/recorded-match.js';
import type { Replay } from '../../src/tools/replay-file.js';
import { observer, observerLogon, type LoggedOn } from './clients.js';

export { recordedMatch, type Replay };
export { playReplay, sendRecords } from '../../src/tools/replay-client.js';

/**
 * The recorded game cut short: its first `count` records and its last (the game's end). For a test
 * whose point is not the whole game (a failover, a transport, frames crossing Redis): the same
 * real data, the same landmarks up to the cut, and a game_end to wait for, at a fraction of the CPU.
 */
export function shortMatch(count: number, replay: Replay = recordedMatch()): Replay {
  return { ...replay, records: [...replay.records.slice(0, count), replay.records[replay.records.length - 1]] };
}

/** Index of the first record of this type (match_start: the record that carries the game's match id). */
export function recordIndex(replay: Replay, type: string): number {
  const i = replay.records.findIndex((r) => r.type === type);
  if (i < 0) throw new Error(`the replay has no ${type} record`);
  return i;
}

/** The game's match id (the data of its match_start record). */
export function replayMatchId(replay: Replay): string {
  return replay.records[recordIndex(replay, 'match_start')].data as string;
}

/** The obs_logon packet the observer that recorded the replay sent (its header), with `fields` over it. */
export function replayLogon(replay: Replay, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const h = replay.header;
  return observerLogon({
    clientVersion: h.clientVersion ?? '0.3.3', obsName: h.obsName, groupCode: h.groupCode, leftTeam: h.leftTeam, rightTeam: h.rightTeam,
    ...(h.toolsData ? { toolsData: h.toolsData } : {}), ...fields,
  });
}

/** An observer with the real client's options that logs on as the replay's observer did. */
export function replayObserver(url: string, replay: Replay, fields: Record<string, unknown> = {}, options: { reconnection?: boolean } = {}): Promise<LoggedOn & { socket: Socket }> {
  return observer(url, replayLogon(replay, fields), options);
}
