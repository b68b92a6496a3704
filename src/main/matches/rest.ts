// For overlay developers and tools that cannot hold a socket:
//   GET /match/:groupCode          the current match_data of a live match: the very text an overlay
//                                  receives (the frame's JSON string), 404 when there is none
//   GET /schema/match_data.json    the JSON Schema the frame serializer is built from
// No key: a group code is an identifier only (docs/interface.md 5), as on the broadcast port.
import { matchDataJson } from '../../protocol/wire.js';
import type { Frame, FrameBus } from '../frames/index.js';
import type { MatchDirectory } from './match-directory.js';
import { publishedMatchDataSchema } from '../../schemas/match-data.js';
import type { Router } from '../http/router.js';

const SCHEMA_TEXT = JSON.stringify(publishedMatchDataSchema, null, 2) + '\n';

/** Scale-out: how long a node waits for the owner's keyframe of a match it does not follow yet. */
const REMOTE_FRAME_WAIT_MS = 2000;
/** How long the text of a local frame may take to come from its shard (matches/frame-texts.ts). */
const TEXT_WAIT_MS = 2000;

/**
 * The latest frame of a live match. With REDIS_URL a node that runs the match or has an overlay for
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

/**
 * The frame text of the match's latest frame: a local frame's text may be in its shard (asked for on
 * the bus, it comes as a FrameText message); a newer frame may come meanwhile.
 */
export function latestFrameText(frames: FrameBus, first: Frame | undefined): string | null | Promise<{ frame: Frame; frameText: string } | undefined> {
  if (!first) return null;
  const at = frames.askFrameText(first);
  if (at !== null) return at;
  return new Promise((resolve) => {
    let frame = first;
    const done = (found: { frame: Frame; frameText: string } | undefined) => { clearTimeout(timer); unsubscribe(); resolve(found); };
    const unsubscribe = frames.subscribe(frame.groupCode, (newer) => {
      frame = newer;
      const text = frames.askFrameText(newer);
      if (text !== null) done({ frame: newer, frameText: text });
    }, (text) => {
      if (text.frameNo === frame.frameNo) done({ frame, frameText: text.frameText });
    });
    const timer = setTimeout(() => done(undefined), TEXT_WAIT_MS);
  });
}

/** The match's latest frame with its frame text (GET /match, the feeds), or undefined when there is none. */
export async function readLatestFrameText(frames: FrameBus, shared: MatchDirectory | undefined, groupCode: string): Promise<{ frame: Frame; frameText: string } | undefined> {
  const latest = await latestFrame(frames, shared, groupCode);
  const at = latestFrameText(frames, latest);
  return typeof at === 'string' ? { frame: latest!, frameText: at } : at === null ? undefined : await at;
}

/** `shared`: the directory of a scale-out deployment (REDIS_URL); in one process every live match's frame is at hand. */
export function registerMatchData(router: Router, frames: FrameBus, shared?: MatchDirectory): void {
  router.get('/match/:groupCode', async (req, reply) => {
    let groupCode: string;
    try {
      groupCode = decodeURIComponent(req.params[0]);
    } catch {
      return reply.error(400, 'Invalid group code');
    }
    const found = await readLatestFrameText(frames, shared, groupCode);
    // Live in the shared directory but no frame came (Redis or its node did not answer in time): not "no match".
    if (!found && shared?.get(groupCode)) return reply.error(503, 'The match is live, but its latest frame did not come in time. Try again in a moment.');
    if (!found) return reply.error(404, 'Match not found');
    frames.frameTextUsed(found.frame, true);
    reply.send(200, 'application/json; charset=utf-8', matchDataJson(found.frameText), { 'Cache-Control': 'no-store' });
  });

  router.get('/schema/match_data.json', (_req, reply) => {
    reply.send(200, 'application/schema+json; charset=utf-8', SCHEMA_TEXT);
  });
}
