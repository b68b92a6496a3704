// For overlay developers and tools that cannot hold a socket:
//   GET /match/:groupCode          the current match_data of a live match: the very text a frontend
//                                  receives (the frame's JSON string), 404 when there is none
//   GET /schema/match_data.json    the JSON Schema the frame serializer is built from
// No key: a group code is an identifier only (docs/interface.md 5), as on the broadcast port.
import { matchDataJson } from '../../protocol/wire.js';
import type { Frame, FrameBus, FrameTextSource } from '../ports/frame-bus.js';
import type { MatchDirectory } from '../ports/match-directory.js';
import { publishedMatchDataSchema } from '../../schemas/match-data.js';
import type { Router } from './http.js';

const SCHEMA_TEXT = JSON.stringify(publishedMatchDataSchema, null, 2) + '\n';

/** Scale-out: how long a node waits for the owner's keyframe of a match it does not follow yet. */
const REMOTE_FRAME_WAIT_MS = 2000;
/** How long the text of a local frame may take to come from its shard (matches/frame-texts.ts). */
const TEXT_WAIT_MS = 2000;

/**
 * The latest frame of a live match. With REDIS_URL a node that runs the match or has a frontend for
 * it has it at hand; any other node follows the match for a moment (the FrameBus asks its owner for
 * a keyframe), so that every node answers the same.
 */
export function latestFrame(frames: FrameBus, directory: MatchDirectory | undefined, groupCode: string): Frame | undefined | Promise<Frame | undefined> {
  const frame = frames.latest(groupCode);
  if (frame || !directory?.get(groupCode)) return frame;
  return new Promise((resolve) => {
    const done = (f: Frame | undefined) => { clearTimeout(timer); unsubscribe(); resolve(f); };
    const unsubscribe = frames.subscribe(groupCode, (f) => done(f));
    const timer = setTimeout(() => done(frames.latest(groupCode)), REMOTE_FRAME_WAIT_MS);
  });
}

/** The frame once its text is here: a local frame's text may be in its shard; a newer frame may come meanwhile. */
export async function withText(frames: FrameBus, texts: FrameTextSource, first: Frame | undefined): Promise<Frame | undefined> {
  const deadline = Date.now() + TEXT_WAIT_MS;
  let frame = first;
  while (frame && frame.wireText === null) {
    const left = deadline - Date.now();
    if (left <= 0) return undefined;
    const waiting = frame;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, left);
      texts.whenText(waiting, () => { clearTimeout(timer); resolve(); });
    });
    if (waiting.wireText === null) frame = frames.latest(waiting.groupCode);
  }
  return frame;
}

/** `shared`: the directory of a scale-out deployment (REDIS_URL); in one process every live match's frame is at hand. */
export function registerMatchData(router: Router, frames: FrameBus, texts: FrameTextSource, shared?: MatchDirectory): void {
  router.get('/match/:groupCode', async (req, reply) => {
    let groupCode: string;
    try {
      groupCode = decodeURIComponent(req.params[0]);
    } catch {
      return reply.error(400, 'Invalid group code');
    }
    const frame = await withText(frames, texts, await latestFrame(frames, shared, groupCode));
    if (!frame || frame.wireText === null) return reply.error(404, 'Match not found');
    texts.used(frame, true);
    reply.send(200, 'application/json; charset=utf-8', matchDataJson(frame.wireText), { 'Cache-Control': 'no-store' });
  });

  router.get('/schema/match_data.json', (_req, reply) => {
    reply.send(200, 'application/schema+json; charset=utf-8', SCHEMA_TEXT);
  });
}
